import Foundation
import Hummingbird
import OutpostWire

/// The home page, the user's profile and the organisation page's frame.
extension HomeController {
    var organizationPages: [String: Page] { ["organization.html": { try await organizationPage($0) }] }

    /// `index.html`: who is signed in and where to go; a sign-in button for a visitor.
    func indexPage(_ home: HomeRequest) async throws -> HomePage {
        let session = home.session
        var main = ""
        if session.user == nil, session.securityOn {
            main += "<section class=\"panel\" aria-labelledby=\"welcome\"><h2 id=\"welcome\">Welcome</h2>"
            main += "<p>Sign in to see your organization's content, maps and devices.</p>"
            main += "<p><a class=\"button\" href=\"/arcgis/home/signin.html\">Sign in</a></p></section>"
            return HomePage(title: "Outpost", section: .home, session: session, main: main)
        }
        let items = try await home.get(HomeRequest.portal + "/search", [("q", "*"), ("num", "1")])
        let total = items["total"]?.int64Value ?? 0
        if let user = session.user {
            main += "<p>Signed in as <strong>\(HTMLText.escape(user.fullName))</strong> (\(HTMLText.escape(Self.roleName(user.role))))."
        } else {
            main += "<p>Token security is off: anyone who reaches this server may use and change its content."
        }
        main += " The organization holds \(total) item\(total == 1 ? "" : "s") you can see.</p>"
        main += "<section aria-labelledby=\"tasks\"><h2 id=\"tasks\">What to do</h2><ul class=\"tiles\">"
        main += Self.tile("content.html", "Content", "Your items, folders and sharing; add data that becomes a service.")
        if session.mayCreate { main += Self.tile("webmap.html", "Make a web map", "Choose layers and a basemap, ready for offline use.") }
        main += Self.tile("devices.html", "Devices", "The devices that take services offline and sync.")
        if session.isAdmin { main += Self.tile("organization.html", "Organization", "Members, sessions, backups, storage and jobs.") }
        main += "</ul></section>"
        return HomePage(title: "Outpost", section: .home, session: session, main: main)
    }

    static func tile(_ page: String, _ title: String, _ text: String) -> String {
        "<li><a href=\"/arcgis/home/\(page)\"><strong>\(HTMLText.escape(title))</strong><span>\(HTMLText.escape(text))</span></a></li>"
    }

    /// `user.html`: the signed-in user's profile.
    /// `user.html`: one's profile and sign-ins; an administrator's `?user=<name>`: that member's sign-ins.
    func userPage(_ home: HomeRequest) async throws -> HomePage {
        guard let user = home.session.user else { return signInNeeded(home, page: "user.html") }
        if let other = home.form.string("user"), !other.isEmpty, other.caseInsensitiveCompare(user.username) != .orderedSame {
            let main = try await sessionsSection(home, user: other)
            return HomePage(title: "Sign-ins of \(other)", section: .organization, session: home.session, main: main)
        }
        var main = "<dl class=\"facts\">"
        main += "<dt>User name</dt><dd>\(HTMLText.escape(user.username))</dd>"
        main += "<dt>Full name</dt><dd>\(HTMLText.escape(user.fullName))</dd>"
        main += "<dt>Role</dt><dd>\(HTMLText.escape(Self.roleName(user.role)))</dd></dl>"
        main += "<p><a href=\"/arcgis/home/content.html\">My content</a></p>"
        main += try await sessionsSection(home, user: user.username)
        return HomePage(title: "Profile", section: .user, session: home.session, main: main)
    }

    /// `organization.html`: an admin's (or anyone's with token security off) members and
    /// operations sections.
    func organizationPage(_ home: HomeRequest) async throws -> HomePage {
        if home.session.user == nil, home.session.securityOn { return signInNeeded(home, page: "organization.html") }
        guard home.session.isAdmin else {
            let main = "<p role=\"alert\">The organization's settings are for its administrators.</p>"
            return HomePage(title: "Organization", section: .organization, session: home.session, main: main, status: .forbidden)
        }
        let main = try await membersSection(home) + operationsSection(home)
        return HomePage(title: "Organization", section: .organization, session: home.session, main: main)
    }

    /// A page that needs a signed-in user, for a visitor: a sign-in link that comes back.
    func signInNeeded(_ home: HomeRequest, page: String) -> HomePage {
        let main =
            "<p>Sign in to see this page.</p><p><a class=\"button\" href=\"/arcgis/home/signin.html?returnTo=\(HTMLText.query(page))\">Sign in</a></p>"
        return HomePage(title: "Sign in", section: nil, session: home.session, main: main)
    }

    /// ArcGIS's role names as people read them.
    static func roleName(_ role: String) -> String {
        switch role {
        case "org_admin": "Administrator"
        case "org_publisher": "Publisher (editor)"
        case "org_user": "User (viewer)"
        default: role
        }
    }
}
