import Foundation

/// A portal item as a user names it: its id, or the URL they copied from a browser or the REST
/// API (`https://host/arcgis/home/item.html?id=<id>`, `…/sharing/rest/content/items/<id>`,
/// with `/data` or a query string, `…/apps/mapviewer/index.html?webmap=<id>`). A URL also
/// names the portal: what precedes `/home/`, `/sharing/` or `/apps/` (`https://host/arcgis`).
/// A URL with a user name or password (`https://bob:secret@host/…`) is refused: the portal URL
/// is asked, printed and written into job files, and Outpost's clients sign in with a token
/// (`--token`), not user information; no error repeats what precedes an `@` (`redacted`).
public struct ItemReference: Sendable, Equatable {
    public var itemId: String
    /// The portal root (`…/arcgis`, the portal being `…/arcgis/sharing/rest`) a URL named; nil
    /// for a bare id.
    public var portal: URL?

    public init(itemId: String, portal: URL? = nil) {
        self.itemId = itemId
        self.portal = portal
    }

    /// Path segments a portal's own pages and API sit under; the portal is what precedes them.
    static let portalSegments: Set<String> = ["home", "sharing", "apps"]

    /// `text` as an id (letters and digits, as portal ids are) or an item URL.
    public init(parsing text: String) throws(ItemReferenceError) {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard text.contains("://") else {
            guard Self.isItemId(text) else { throw .notAnItem(Self.redacted(text)) }
            self.init(itemId: text)
            return
        }
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            components.host?.isEmpty == false
        else { throw .notAnItem(Self.redacted(text)) }
        guard components.user == nil, components.password == nil else { throw .credentialsInURL(Self.redacted(text)) }
        let segments = components.path.split(separator: "/").map(String.init)
        guard let marker = segments.firstIndex(where: { Self.portalSegments.contains($0.lowercased()) }) else { throw .noPortal(Self.redacted(text)) }
        // `…/content/items/<id>[/data|/info/…]`, else the page's `id=` or `webmap=`.
        var id: String?
        if let items = segments.lastIndex(where: { $0.lowercased() == "items" }), items + 1 < segments.count { id = segments[items + 1] }
        let query = components.queryItems ?? []
        id = id ?? query.first { $0.name.lowercased() == "id" }?.value ?? query.first { $0.name.lowercased() == "webmap" }?.value
        guard let id, Self.isItemId(id) else { throw .noItemId(Self.redacted(text)) }
        components.path = segments[..<marker].map { "/" + $0 }.joined()
        components.query = nil
        components.fragment = nil
        guard let portal = components.url else { throw .noPortal(Self.redacted(text)) }
        self.init(itemId: id, portal: portal)
    }

    /// The portal to ask: `server` (`--server`) when given, else the URL's.
    public func portal(server: String?) throws(ItemReferenceError) -> URL {
        if let server {
            guard let url = URL(string: server), url.scheme != nil, url.host != nil else { throw .serverNotAURL(Self.redacted(server)) }
            guard url.user == nil, url.password == nil else { throw .credentialsInURL(Self.redacted(server)) }
            return url
        }
        guard let portal else { throw .noServer(itemId) }
        return portal
    }

    /// The id and portal of an item given as `text` (an id or URL) and an optional `server`.
    public static func resolve(_ text: String, server: String?) throws(ItemReferenceError) -> (itemId: String, portal: URL) {
        let reference = try ItemReference(parsing: text)
        return (reference.itemId, try reference.portal(server: server))
    }

    /// `text` as an error may repeat it: whatever lies between `://` (or the start) and the
    /// last `@` left out, since that may be a password (also in a URL that does not parse, or
    /// one whose password holds a `/`).
    static func redacted(_ text: String) -> String {
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        guard let at = text[start...].lastIndex(of: "@") else { return text }
        return text[..<start] + "…" + text[at...]
    }

    static func isItemId(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) }
    }
}

/// Why an item reference could not be used; the text says what to give instead.
public enum ItemReferenceError: Error, Equatable, CustomStringConvertible {
    case notAnItem(String)
    case noPortal(String)
    case noItemId(String)
    case noServer(String)
    case serverNotAURL(String)
    /// A URL with user information, as `ItemReference.redacted` repeats it.
    case credentialsInURL(String)

    public var description: String {
        switch self {
        case .notAnItem(let text):
            "'\(text)' is neither an item id nor an item URL (https://host/arcgis/home/item.html?id=<id>)"
        case .noPortal(let text):
            "\(text) is not a portal URL: no /home/, /sharing/ or /apps/ in its path"
        case .noItemId(let text):
            "\(text) names no item: expected …/home/item.html?id=<id> or …/sharing/rest/content/items/<id>"
        case .noServer(let id):
            "--server is needed with an item id (\(id)); or give the item's URL"
        case .serverNotAURL(let server):
            "--server is not a URL: \(server)"
        case .credentialsInURL(let url):
            "\(url) has a user name or password in it, which would be kept with the portal's URL: give the URL without them (and --token to sign in)"
        }
    }
}
