import Foundation
import Hummingbird
import OutpostWire

/// Sign-ins (`user.html`; docs/home.md): the member's live sessions as the portal lists them
/// (`community/users/<name>/sessions`), each ended with a second step (`…/revoke`). An
/// administrator reaches any member's through `user.html?user=<name>`.
extension HomeController {
    var sessionActions: [String: Action] { ["endSession": { try await endSession($0) }] }

    /// Names of the clients a member meets, for the list.
    static let clientNames = ["arcgisonline": "the home (this server's pages)", "pythonapi": "ArcGIS API for Python"]

    func sessionsSection(_ home: HomeRequest, user: String) async throws -> String {
        let answer = try await home.get(HomeRequest.portal + "/community/users/\(HTMLText.query(user))/sessions")
        let sessions = answer["sessions"]?.arrayValue ?? []
        var out = "<section aria-labelledby=\"sessions-heading\"><h2 id=\"sessions-heading\">Sign-ins</h2>"
        guard !sessions.isEmpty else { return out + "<p>No browser or app stays signed in as \(HTMLText.escape(user)).</p></section>" }
        out += "<p>Each browser or app that stays signed in. Ending the one of this browser signs it out.</p>"
        out += "<div class=\"table-wrap\"><table id=\"sessions\"><caption>Sign-ins of \(HTMLText.escape(user))</caption><thead><tr>"
        for heading in ["App", "Signed in", "Last renewed", "Ends", "Actions"] { out += "<th scope=\"col\">\(heading)</th>" }
        out += "</tr></thead><tbody>"
        for session in sessions {
            let id = session["id"]?.stringValue ?? ""
            let client = session["client"]?.stringValue ?? ""
            let name = Self.clientNames[client].map { "\($0) (\(client))" } ?? client
            out += "<tr><th scope=\"row\">\(HTMLText.escape(name))</th><td>\(HTMLText.date(milliseconds: session["started"]?.int64Value))</td>"
            out += "<td>\(HTMLText.date(milliseconds: session["renewed"]?.int64Value))</td>"
            out += "<td>\(HTMLText.date(milliseconds: session["expires"]?.int64Value))</td><td><details><summary>End</summary>"
            out += "<form method=\"post\" action=\"/arcgis/home/actions/endSession\">\(HTMLText.csrfField(home.session))"
            out +=
                "<input type=\"hidden\" name=\"user\" value=\"\(HTMLText.escape(user))\"><input type=\"hidden\" name=\"session\" value=\"\(HTMLText.escape(id))\">"
            out += "<button type=\"submit\" class=\"danger\">End this sign-in</button></form></details></td></tr>"
        }
        return out + "</tbody></table></div></section>"
    }

    func endSession(_ home: HomeRequest) async throws -> Response {
        let user = home.form.string("user") ?? ""
        let session = home.form.string("session") ?? ""
        _ = try await home.post(HomeRequest.portal + "/community/users/\(HTMLText.query(user))/sessions/\(HTMLText.query(session))/revoke")
        let page =
            user.caseInsensitiveCompare(home.session.user?.username ?? "") == .orderedSame ? "user.html" : "user.html?user=\(HTMLText.query(user))"
        return home.redirect(to: page, done: "The sign-in ended.")
    }
}
