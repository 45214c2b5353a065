/// A server's address as the token exchange compares two (docs/portal.md, "Federation"): its
/// scheme, host (lower-cased) and effective port (the scheme's own when none is written), so
/// `http://host` and `http://host:80` are one server, and `http://host:443`, `https://host:80`
/// and `http://host` served over TLS are others. Anything written another way (user
/// information, a port with leading zeros, an encoded or odd character in the host) is no
/// address: the exchange fails closed.
public struct ServerAddress: Equatable, Sendable {
    public var scheme: String
    public var host: String
    public var port: Int

    public static func defaultPort(of scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// `http(s)://host[:port][/…|?…|#…]`.
    public init?(url: String) {
        let lowered = url.lowercased()
        guard let scheme = ["http", "https"].first(where: { lowered.hasPrefix($0 + "://") }) else { return nil }
        let authority = lowered.dropFirst(scheme.count + 3).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        self.init(scheme: scheme, authority: String(authority))
    }

    /// `host[:port]` (a request's `Host`) reached over `scheme`.
    public init?(scheme: String, authority: String) {
        let scheme = scheme.lowercased()
        // A host name is at most 253 bytes; a port and brackets add a few.
        guard let defaultPort = Self.defaultPort(of: scheme), authority.utf8.count <= 270 else { return nil }
        var host = Substring(authority.lowercased())
        var port = defaultPort
        // The port follows the last colon outside an IPv6 literal's brackets.
        if let colon = host.lastIndex(of: ":"), !host[colon...].contains("]") {
            let digits = host[host.index(after: colon)...]
            guard (1...5).contains(digits.count), digits.first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(digits), value <= 65_535
            else { return nil }
            port = value
            host = host[..<colon]
        }
        guard Self.isHost(host) else { return nil }
        (self.scheme, self.host, self.port) = (scheme, String(host), port)
    }

    /// A name (letters, digits, `-`, `.`), an IPv4 address, or an IPv6 literal in brackets.
    public static func isHost(_ host: Substring) -> Bool {
        if host.hasPrefix("[") {
            let inside = host.dropFirst().dropLast()
            return host.hasSuffix("]") && !inside.isEmpty && inside.allSatisfy { $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }
        }
        return !host.isEmpty && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
    }

    /// A server's origin as an operator writes it (`--public-url`): `http(s)://host[:port]`, an
    /// optional `/` or `/arcgis` after it (Outpost serves at `/arcgis`), as
    /// `scheme://host[:port]` lower-cased without a default port; nil for anything else.
    public static func origin(ofPublicURL text: String) -> String? {
        var text = Substring(text)
        for suffix in ["/arcgis/", "/arcgis", "/"] where text.lowercased().hasSuffix(suffix) && text.dropLast(suffix.count).contains("://") {
            text = text.dropLast(suffix.count)
            break
        }
        guard let address = ServerAddress(url: String(text)), !text.dropFirst(address.scheme.count + 3).contains("/") else { return nil }
        return address.origin
    }

    /// `scheme://host[:port]`, without the scheme's default port.
    public var origin: String {
        ServerAddress.defaultPort(of: scheme) == port ? "\(scheme)://\(host)" : "\(scheme)://\(host):\(port)"
    }
}
