import Foundation

/// How a browser's `Origin`, `Referer` and `Access-Control-Request-Headers` are read: pure text
/// rules, fuzzed (FuzzRequestHead), which `CrossOriginPolicy` decides with (docs/web-clients.md).
public enum WebOrigin {
    /// The longest `Access-Control-Request-Headers` echoed back.
    public static let maximumHeaderListBytes = 1024

    /// `scheme://host[:port]` lower-cased, the default port dropped (`ServerAddress.origin`);
    /// nil for anything else (a path, a query, user information, `null`, a malformed port).
    public static func canonical(_ origin: String) -> String? {
        var text = Substring(origin)
        if text.hasSuffix("/") { text.removeLast() }
        guard let address = ServerAddress(url: String(text)), let range = text.range(of: "://"),
            !text[range.upperBound...].contains(where: { "/?#".contains($0) })
        else { return nil }
        return address.origin
    }

    /// `host[:port]` of an origin as the browser sends it.
    public static func authority(of origin: String) -> Substring? {
        guard let range = origin.range(of: "://") else { return nil }
        return origin[range.upperBound...]
    }

    /// The origin of a page's address (a `Referer`): its scheme and authority, canonical.
    public static func origin(ofAddress address: String) -> String? {
        guard let range = address.range(of: "://") else { return nil }
        let authority = address[range.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return canonical(String(address[..<range.upperBound] + authority))
    }

    /// An IP literal or `localhost`, with or without a port: a name no one can point elsewhere.
    public static func isAddressOrLocalhost(_ host: String) -> Bool {
        var name = Substring(host.lowercased())
        if name.hasPrefix("[") { return name.contains("]") }
        if let colon = name.lastIndex(of: ":") { name = name[..<colon] }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return name == "localhost" || (parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) })
    }

    /// Header names separated by commas: echoed back only when they look like that.
    public static func isHeaderList(_ text: String) -> Bool {
        text.utf8.count <= maximumHeaderListBytes
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_, ".unicodeScalars.contains($0))
            }
    }
}
