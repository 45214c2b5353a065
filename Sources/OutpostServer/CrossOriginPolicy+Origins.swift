import Foundation

/// How origins, addresses and header lists are read (docs/web-clients.md).
extension CrossOriginPolicy {
    /// ArcGIS: "The token service supports cross-origin access and will always allow access to
    /// all domains."
    static func isTokenService(_ path: String) -> Bool {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return Authenticator.tokenServices.contains(bare)
    }

    /// `scheme://host[:port]` lowercased, the default port dropped; nil for anything else
    /// (a path, a query, user info, `null`).
    static func canonical(_ origin: String) -> String? {
        let lowered = origin.lowercased()
        let scheme: String
        let defaultPort: String
        if lowered.hasPrefix("https://") {
            (scheme, defaultPort) = ("https", "443")
        } else if lowered.hasPrefix("http://") {
            (scheme, defaultPort) = ("http", "80")
        } else {
            return nil
        }
        var authority = String(lowered.dropFirst(scheme.count + 3))
        if authority.hasSuffix("/") { authority.removeLast() }
        guard !authority.isEmpty, authority.utf8.count <= 255,
            authority.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:[]".contains($0)) }), authority.first != ":"
        else { return nil }
        if authority.hasSuffix(":" + defaultPort) { authority.removeLast(defaultPort.count + 1) }
        return scheme + "://" + authority
    }

    /// `host[:port]` of an origin as the browser sends it.
    static func authority(of origin: String) -> Substring? {
        guard let range = origin.range(of: "://") else { return nil }
        return origin[range.upperBound...]
    }

    /// The origin of a page's address (a `Referer`): its scheme and authority, canonical.
    static func origin(ofAddress address: String) -> String? {
        guard let range = address.range(of: "://") else { return nil }
        let authority = address[range.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return canonical(String(address[..<range.upperBound] + authority))
    }

    /// An IP literal or `localhost`, with or without a port: a name no one can point elsewhere.
    static func isAddressOrLocalhost(_ host: String) -> Bool {
        var name = Substring(host.lowercased())
        if name.hasPrefix("[") { return name.contains("]") }
        if let colon = name.lastIndex(of: ":") { name = name[..<colon] }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return name == "localhost" || (parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) })
    }

    /// Header names separated by commas: echoed back only when they look like that.
    static func isHeaderList(_ text: String) -> Bool {
        text.utf8.count <= maximumRequestedHeadersBytes
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_, ".unicodeScalars.contains($0))
            }
    }
}
