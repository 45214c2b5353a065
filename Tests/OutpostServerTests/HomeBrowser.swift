import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostWire
import Testing

@testable import OutpostServer

/// A browser on the home (`/arcgis/home`): it keeps the cookies the server sets, signs in
/// through the portal's real OAuth pages as a person would, and posts the home's forms with the
/// forms' secret of the last page it read. Use with `OAuthFlows.with` (users `ada` admin,
/// `eve` and `ed` editors, `vic` viewer; passwords `<name>-password`).
struct HomeBrowser: Sendable {
    let client: any TestClientProtocol
    /// The cookies kept, by name.
    var cookies: [String: String] = [:]
    /// The forms' secret of the last page read.
    var csrf: String?

    init(_ client: any TestClientProtocol) { self.client = client }

    /// What a request answered.
    struct Page: Sendable, CustomStringConvertible {
        var status: Int
        var headers: HTTPFields
        var text: String

        var location: String? { headers[.location] }
        var json: JSONValue { (try? JSONParser.parse(text)) ?? .null }
        /// The value of the first hidden `csrf` field.
        var csrf: String? { Self.firstMatch(#"name="csrf" value="([^"]*)""#, in: text) }
        /// The text the page shows, tags removed and spaces folded (for `contains` checks).
        var visibleText: String {
            text.replacingOccurrences(of: "<[^>]+>", with: " ", options: .regularExpression)
                .replacingOccurrences(of: "\\s+", with: " ", options: .regularExpression)
                .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&quot;", with: "\"")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        }

        static func firstMatch(_ pattern: String, in text: String) -> String? {
            guard let regex = try? NSRegularExpression(pattern: pattern),
                let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), match.numberOfRanges > 1,
                let range = Range(match.range(at: 1), in: text)
            else { return nil }
            return String(text[range])
        }

        var description: String { "HTTP \(status) \(location.map { "→ \($0) " } ?? "")\(visibleText.prefix(400))" }
    }

    /// One request with the kept cookies; the cookies it sets kept (or dropped at `Max-Age=0`).
    mutating func send(
        _ method: HTTPRequest.Method, _ uri: String, body: ByteBuffer? = nil, contentType: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> Page {
        var headers = extra
        if let contentType { headers[.contentType] = contentType }
        if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
        let page = try await client.execute(uri: uri, method: method, headers: headers, body: body) { response in
            Page(status: Int(response.status.code), headers: response.headers, text: String(buffer: response.body))
        }
        for field in page.headers[values: .setCookie] {
            let pair = field.split(separator: ";").first.map(String.init) ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard let name = parts.first else { continue }
            if field.contains("Max-Age=0") || parts.count < 2 { cookies[name] = nil } else { cookies[name] = parts[1] }
        }
        if let csrf = page.csrf { self.csrf = csrf }
        return page
    }

    /// A page of the home (`content.html?x=y`), redirects followed within the server.
    mutating func open(_ page: String) async throws -> Page {
        try await follow(try await send(.get, page.hasPrefix("/") ? page : "/arcgis/home/\(page)"))
    }

    /// Follows redirects to this server's own paths (at most 8).
    mutating func follow(_ first: Page) async throws -> Page {
        var page = first
        for _ in 0..<8 {
            guard (300..<400).contains(page.status), let location = page.location else { return page }
            let path =
                location.hasPrefix("/")
                ? location
                : (URLComponents(string: location).map { c in c.percentEncodedPath + (c.percentEncodedQuery.map { "?" + $0 } ?? "") } ?? location)
            page = try await send(.get, path)
        }
        return page
    }

    /// Signs in as `user` through `signin.html`, the portal's sign-in page and `postsignin.html`;
    /// answers the page the sign-in came back to.
    mutating func signIn(_ user: String, password: String? = nil, returnTo: String = "index.html") async throws -> Page {
        let start = try await send(.get, "/arcgis/home/signin.html?returnTo=\(returnTo)")
        let authorize = try #require(start.location, "\(start)")
        let signInPage = try await send(.get, authorize)
        let state = try #require(Page.firstMatch(#""oauth_state":"([^"]+)""#, in: signInPage.text), "\(signInPage)")
        let fields = [("oauth_state", state), ("username", user), ("password", password ?? "\(user)-password")]
        let posted = try await send(
            .post, OAuthBrowser.signIn, body: ByteBuffer(string: HomeGateway.formEncoded(fields)),
            contentType: "application/x-www-form-urlencoded")
        return try await follow(posted)
    }

    /// Posts a home form (`actions/<action>`) with the forms' secret of the last page read and
    /// this origin; follows the redirect to the page it answers.
    mutating func submit(_ action: String, _ fields: [(String, String)], csrf: String? = nil, follow: Bool = true) async throws -> Page {
        let secret = csrf ?? self.csrf ?? ""
        let body = HomeGateway.formEncoded([("csrf", secret)] + fields)
        let page = try await send(
            .post, "/arcgis/home/actions/\(action)", body: ByteBuffer(string: body), contentType: "application/x-www-form-urlencoded")
        return follow ? try await self.follow(page) : page
    }

    /// Posts a multipart home form: `fields`, then files (`field`, file name, type, bytes).
    mutating func submitMultipart(
        _ action: String, _ fields: [(String, String)], files: [(String, String, String, [UInt8])], follow: Bool = true
    ) async throws -> Page {
        let boundary = "HomeBrowser\(UInt64.random(in: 0...UInt64.max))"
        var body = ByteBuffer()
        for (name, value) in [("csrf", csrf ?? "")] + fields {
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
        }
        for (name, fileName, type, bytes) in files {
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(fileName)\"\r\n")
            body.writeString("Content-Type: \(type)\r\n\r\n")
            body.writeBytes(bytes)
            body.writeString("\r\n")
        }
        body.writeString("--\(boundary)--\r\n")
        let page = try await send(.post, "/arcgis/home/actions/\(action)", body: body, contentType: "multipart/form-data; boundary=\(boundary)")
        return follow ? try await self.follow(page) : page
    }
}
