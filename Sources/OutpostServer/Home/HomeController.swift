import Foundation
import HTTPTypes
import Hummingbird
import Logging
import OutpostHomeInputs
import OutpostSync
import OutpostWire

/// The organisation's home in the browser (`/arcgis/home/`, docs/home.md): pages rendered by
/// the server from what the REST API answers the signed-in user, and forms whose actions are
/// the same REST and portal operations a client sends (`HomeGateway`). It holds no store: it
/// cannot reach data any other way.
///
/// Every POST goes to `actions/<name>`, checked before its handler runs: the forms' secret
/// (`HomeSession.acceptsCSRF`) and, when the browser says, this origin.
struct HomeController: Sendable {
    let gateway: HomeGateway
    let origin: ServerOrigin
    /// The server's clock (a test target's moves), for what a page says of ages.
    let clock: any WallClock

    /// What an action does with the checked request: it answers (a redirect, most often).
    typealias Action = @Sendable (HomeRequest) async throws -> Response
    /// A page: its markup, from the request and the session.
    typealias Page = @Sendable (HomeRequest) async throws -> HomePage

    static let root = "arcgis/home"

    /// The pages, by file name below `/arcgis/home/`.
    var pages: [String: Page] {
        var pages: [String: Page] = [
            "index.html": { try await indexPage($0) }, "user.html": { try await userPage($0) },
        ]
        for (name, page) in contentPages.merging(itemPages, uniquingKeysWith: { a, _ in a }).merging(webMapPages, uniquingKeysWith: { a, _ in a })
            .merging(uploadPages, uniquingKeysWith: { a, _ in a }).merging(devicePages, uniquingKeysWith: { a, _ in a })
            .merging(organizationPages, uniquingKeysWith: { a, _ in a })
        {
            pages[name] = page
        }
        return pages
    }

    /// The actions, by name below `/arcgis/home/actions/`.
    var actions: [String: Action] {
        var actions: [String: Action] = ["signout": { try await signOut($0) }]
        for part in [
            contentActions, itemActions, mapAreaActions, webMapActions, uploadActions, deviceActions, memberActions, operationActions, sessionActions,
        ] {
            for (name, action) in part { actions[name] = action }
        }
        return actions
    }

    func addRoutes(to router: Router<OutpostRequestContext>, admission: some RouterMiddleware<OutpostRequestContext>) {
        let group = router.group(RouterPath(Self.root)).add(middleware: admission)
        let pages = self.pages
        let actions = self.actions
        group.get("") { request, _ in Response(status: .seeOther, headers: [.location: "/\(Self.root)/index.html"]) }
        group.get("signin.html") { request, context in try await startSignIn(request, context) }
        group.get("postsignin.html") { request, context in try await finishSignIn(request, context) }
        group.get("assets/:file") { request, context in
            guard let (text, type) = HomeAssets.file(context.parameters.get("file") ?? "") else { return try await notFound(request, context) }
            return HomeAssets.response(text, type: type)
        }
        group.get(":page") { request, context in
            let name = context.parameters.get("page") ?? ""
            if name == "backup.tar" { return try await backupDownload(try await homeRequest(request, context)) }
            if name == "thumbnail" { return try await thumbnailImage(try await homeRequest(request, context)) }
            guard let page = pages[name] else { return try await notFound(request, context) }
            let home = try await homeRequest(request, context)
            do {
                return try await page(home).response
            } catch let failure as HomeFailure {
                return HomePage(title: "Something went wrong", section: nil, session: home.session, main: failurePanel(failure), status: .ok).response
            }
        }
        group.get("actions/:action") { request, context in
            let home = try await homeRequest(request, context)
            let main = "<p>This address takes a form. <a href=\"/arcgis/home/index.html\">Go to the home page</a>.</p>"
            return HomePage(title: "Not a page", section: nil, session: home.session, main: main, status: .methodNotAllowed).response
        }
        group.post("actions/:action") { request, context in
            let name = context.parameters.get("action") ?? ""
            let home = try await homeRequest(request, context)
            if let refusal = refusal(of: home) { return refusal }
            guard let action = actions[name] else { return try await notFound(request, context) }
            do {
                return try await action(home)
            } catch let failure as HomeFailure {
                return home.redirect(to: home.returnPath ?? "index.html", failed: failure.text)
            }
        }
    }

    /// A forged or foreign POST: refused before its action runs, changing nothing.
    private func refusal(of home: HomeRequest) -> Response? {
        let request = home.request
        let sameOrigin = request.headers[.origin].map { $0 == origin.of(request) } ?? true
        let fetchSite = request.headers[HTTPField.Name("Sec-Fetch-Site")!]
        let sameSite = fetchSite.map { $0 == "same-origin" || $0 == "none" } ?? true
        guard sameOrigin, sameSite, home.session.acceptsCSRF(home.form.string("csrf")) else {
            var session = home.session
            session.flash = HomeFlash(kind: .failed, text: "This form was not sent from this page, or it has expired. Load the page again and retry.")
            return HomePage(title: "Not sent", section: nil, session: session, main: "", status: .forbidden).response
        }
        return nil
    }

    private func notFound(_ request: Request, _ context: OutpostRequestContext) async throws -> Response {
        let home = try await homeRequest(request, context)
        let main = "<p>There is no such page. <a href=\"/arcgis/home/index.html\">Go to the home page</a>.</p>"
        return HomePage(title: "Page not found", section: nil, session: home.session, main: main, status: .notFound).response
    }

    func failurePanel(_ failure: HomeFailure) -> String {
        "<div class=\"panel\" role=\"alert\"><p>\(HTMLText.escape(failure.text))</p>"
            + "<p><a href=\"/arcgis/home/index.html\">Go to the home page</a></p></div>"
    }
}
