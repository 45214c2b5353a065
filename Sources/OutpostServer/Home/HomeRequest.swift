import Foundation
import HTTPTypes
import Hummingbird
import OutpostHomeInputs
import OutpostWire

/// A request to the home with who made it: what pages and actions work from. Its `get` and
/// `post` are the REST API's answers to that user (`HomeGateway`).
struct HomeRequest: Sendable {
    let request: Request
    let context: OutpostRequestContext
    var session: HomeSession
    let gateway: HomeGateway

    /// The form's and the query's parameters.
    var form: RequestParameters { context.form.parameters }

    /// A REST resource's JSON as the user may read it; `path` from the server's root.
    func get(_ path: String, _ form: [(String, String)] = []) async throws -> JSONValue {
        try await gateway.json(.get, path, form, session: session, original: request, context: context)
    }

    /// A REST operation, as the user.
    func post(_ path: String, _ form: [(String, String)] = [], file: HomeUpload? = nil) async throws -> JSONValue {
        try await gateway.json(.post, path, form, file: file, session: session, original: request, context: context)
    }

    /// Deletes a portal item as a client does (the portal's `delete`, below its owner's
    /// content); answers the item as it was.
    func deletePortalItem(_ id: String) async throws -> JSONValue {
        let item = try await get(Self.portal + "/content/items/\(HTMLText.query(id))")
        let owner = item["owner"]?.stringValue ?? ""
        _ = try await post(Self.portal + "/content/users/\(HTMLText.query(owner))/items/\(HTMLText.query(id))/delete")
        return item
    }

    /// The portal's REST root.
    static let portal = "/arcgis/sharing/rest"

    /// The page a form asks to return to (`return`, a page of the home with its query), if
    /// it names one: never another site or another path.
    var returnPath: String? { HomeInputs.returnPage(form.string("return")) }

    /// To `page` (below `/arcgis/home/`) with a message for it.
    func redirect(to page: String, done: String) -> Response { redirect(to: page, flash: HomeFlash(kind: .done, text: done)) }

    func redirect(to page: String, failed: String) -> Response { redirect(to: page, flash: HomeFlash(kind: .failed, text: failed)) }

    func redirect(to page: String, flash: HomeFlash?) -> Response {
        var headers: HTTPFields = [.location: "/\(HomeController.root)/\(HomeInputs.returnPage(page) ?? "index.html")", .cacheControl: "no-store"]
        for cookie in session.setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        if let flash {
            headers.append(HTTPField(name: .setCookie, value: HomeSession.setCookie(HomeSession.flashCookie, flash.cookieValue, secure: secure)))
        }
        return Response(status: .seeOther, headers: headers)
    }

    /// Whether the home's cookies are marked `Secure` (the server is reached over HTTPS).
    var secure: Bool { session.secureCookies }
}
