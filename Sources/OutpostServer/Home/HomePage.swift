import Foundation
import HTTPTypes
import Hummingbird
import OutpostHomeInputs

/// One page of the home: the shell every page shares (a skip link, the header with the
/// organisation's navigation and who is signed in, the main landmark, the message an action
/// left) around the page's own markup. `main` is markup already escaped: build it with
/// `HTMLText.escape` and the helpers below, never from a user's text as it came.
struct HomePage: Sendable {
    /// The sections of the navigation; the page's own is marked `aria-current`.
    enum Section: String, Sendable, CaseIterable {
        case home, content, map, devices, organization, user

        var title: String {
            switch self {
            case .home: "Home"
            case .content: "Content"
            case .map: "Make a web map"
            case .devices: "Devices"
            case .organization: "Organization"
            case .user: "Profile"
            }
        }

        var file: String {
            switch self {
            case .home: "index.html"
            case .content: "content.html"
            case .map: "webmap.html"
            case .devices: "devices.html"
            case .organization: "organization.html"
            case .user: "user.html"
            }
        }
    }

    var title: String
    var section: Section?
    var session: HomeSession
    /// The page's markup, escaped.
    var main: String
    /// Same-origin scripts the page loads (file names below `/arcgis/home/assets/`).
    var scripts: [String] = []
    var status: HTTPResponse.Status = .ok

    /// The policy of every home page: this server's styles, images, scripts and frames only;
    /// forms post back here; nothing frames the home.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; connect-src 'self'; frame-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    var response: Response {
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .contentSecurityPolicy: Self.contentSecurityPolicy,
        ]
        // `same-origin`: the forms' POSTs carry this origin (`no-referrer` would make it `null`),
        // and nothing of the home's addresses goes to another site.
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        for cookie in session.setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    var html: String {
        var out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        out += "<title>\(HTMLText.escape(title)) · Outpost</title><link rel=\"stylesheet\" href=\"/arcgis/home/assets/home.css\">"
        for script in scripts { out += "<script src=\"/arcgis/home/assets/\(HTMLText.escape(script))\" defer></script>" }
        out += "</head><body><a class=\"skip\" href=\"#main\">Skip to content</a>"
        out += header
        out += "<main id=\"main\" tabindex=\"-1\"><h1>\(HTMLText.escape(title))</h1>"
        out += flash
        out += main
        out += "</main><footer><p>Outpost · <a href=\"/arcgis/rest/services\">Services directory</a></p></footer></body></html>"
        return out
    }

    private var header: String {
        var out = "<header><p class=\"brand\"><a href=\"/arcgis/home/index.html\">Outpost</a></p>"
        out += "<nav aria-label=\"Organization\"><ul>"
        for item in Section.allCases where item != .user && visible(item) {
            let current = item == section ? " aria-current=\"page\"" : ""
            out += "<li><a href=\"/arcgis/home/\(item.file)\"\(current)>\(item.title)</a></li>"
        }
        out += "</ul></nav><div class=\"who\">"
        if let user = session.user {
            out += "<a href=\"/arcgis/home/user.html\">\(HTMLText.escape(user.fullName))</a>"
            out += "<form method=\"post\" action=\"/arcgis/home/actions/signout\">\(HTMLText.csrfField(session))"
            out += "<button type=\"submit\">Sign out</button></form>"
        } else {
            out += "<a class=\"button\" href=\"/arcgis/home/signin.html\">Sign in</a>"
        }
        return out + "</div></header>"
    }

    private func visible(_ section: Section) -> Bool {
        switch section {
        case .organization: session.isAdmin
        case .map: session.mayCreate
        default: true
        }
    }

    private var flash: String {
        guard let flash = session.flash else { return "" }
        switch flash.kind {
        case .done: return "<p class=\"flash done\" role=\"status\">\(HTMLText.escape(flash.text))</p>"
        case .failed: return "<p class=\"flash failed\" role=\"alert\">\(HTMLText.escape(flash.text))</p>"
        }
    }
}

/// Markup from text: every string a page shows goes through `escape`.
enum HTMLText {
    static func escape(_ text: String) -> String { HTMLDirectory.escape(text) }

    /// The hidden field every form of the home carries.
    static func csrfField(_ session: HomeSession) -> String {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(session.csrf))\">"
    }

    /// A query string's value.
    static func query(_ text: String) -> String { HomeGateway.percentEncoded(text) }

    /// A date as people read it (UTC), from epoch milliseconds; "—" for none.
    static func date(milliseconds: Int64?) -> String {
        guard let milliseconds, milliseconds > 0 else { return "—" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute], from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        let month = months[max(0, min(11, (parts.month ?? 1) - 1))]
        return "\(parts.day ?? 1) \(month) \(parts.year ?? 1970), "
            + String(format: "%02d:%02d UTC", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// A size as people read it.
    static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
