import Foundation
import HTTPTypes
import Hummingbird
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
    var returnPath: String? { Self.homePath(form.string("return")) }

    /// `text` if it is a page of the home (`content.html?folder=x`): no scheme, no host, no
    /// `..`, no backslash; its query printable ASCII as a URL carries it (it goes into a
    /// `Location` header: no control character, space or quote).
    static func homePath(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text.utf8.count <= 1024 else { return nil }
        let page = text.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard page.hasSuffix(".html"), page.utf8.allSatisfy({ isPageByte($0) }), text.utf8.allSatisfy({ isQueryByte($0) }),
            !text.contains("//"), !text.contains("..")
        else { return nil }
        return text
    }

    /// What a URL's query carries: letters, digits and `-._~%=&+,;:@/?!*'()$`.
    private static func isQueryByte(_ byte: UInt8) -> Bool {
        isPageByte(byte) || Array("_~%=&+,;:@/?!*'()$".utf8).contains(byte)
    }

    private static func isPageByte(_ byte: UInt8) -> Bool {
        (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// To `page` (below `/arcgis/home/`) with a message for it.
    func redirect(to page: String, done: String) -> Response { redirect(to: page, flash: HomeFlash(kind: .done, text: done)) }

    func redirect(to page: String, failed: String) -> Response { redirect(to: page, flash: HomeFlash(kind: .failed, text: failed)) }

    func redirect(to page: String, flash: HomeFlash?) -> Response {
        var headers: HTTPFields = [.location: "/\(HomeController.root)/\(Self.homePath(page) ?? "index.html")", .cacheControl: "no-store"]
        for cookie in session.setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        if let flash {
            headers.append(HTTPField(name: .setCookie, value: HomeSession.setCookie(HomeSession.flashCookie, flash.cookieValue, secure: secure)))
        }
        return Response(status: .seeOther, headers: headers)
    }

    /// Whether the home's cookies are marked `Secure` (the server is reached over HTTPS).
    var secure: Bool { session.secureCookies }
}
