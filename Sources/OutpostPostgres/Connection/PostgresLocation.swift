/// Where the PostgreSQL database is: a `postgres://` (or `postgresql://`) URL, as libpq and
/// every PostgreSQL tool write it — `postgres://user[:password]@host[:port]/database`, with
/// `sslmode=disable|prefer|require` (default `prefer`) and `application_name` as the only
/// query parameters understood. Percent-escapes are decoded in the user, password and database.
public struct PostgresLocation: Sendable, Equatable {
    public enum TLSMode: String, Sendable, Equatable { case disable, prefer, require }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    public var applicationName: String?

    /// Why a URL was refused, said so that the fix is clear.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init(_ url: String) throws {
        let scheme = ["postgres://", "postgresql://"].first { url.hasPrefix($0) }
        guard let scheme else { throw Invalid(description: "'\(Self.redacted(url))' is not a postgres:// URL") }
        var rest = Substring(url.dropFirst(scheme.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else { throw Invalid(description: "no database in '\(Self.redacted(url))' (…/DATABASE)") }
        let authority = rest[..<slash]
        database = try Self.decoded(rest[rest.index(after: slash)...], "database")
        guard !database.isEmpty else { throw Invalid(description: "no database in '\(Self.redacted(url))' (…/DATABASE)") }
        var hostPart = authority
        username = "postgres"
        password = nil
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            hostPart = authority[authority.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                username = try Self.decoded(credentials[..<colon], "user")
                password = try Self.decoded(credentials[credentials.index(after: colon)...], "password")
            } else {
                username = try Self.decoded(credentials, "user")
            }
        }
        port = 5432
        if let colon = hostPart.lastIndex(of: ":"), !hostPart.hasSuffix("]") {
            guard let number = Int(hostPart[hostPart.index(after: colon)...]), (1...65535).contains(number) else {
                throw Invalid(description: "bad port in '\(Self.redacted(url))'")
            }
            port = number
            hostPart = hostPart[..<colon]
        }
        host = String(hostPart.trimmingPrefix("[").prefix { $0 != "]" })
        guard !host.isEmpty else { throw Invalid(description: "no host in '\(Self.redacted(url))'") }
        tls = .prefer
        applicationName = nil
        for pair in query.split(separator: "&") {
            let item = pair.split(separator: "=", maxSplits: 1).map(String.init)
            switch (item.first ?? "", item.count == 2 ? item[1] : "") {
            case ("sslmode", let mode):
                guard let value = TLSMode(rawValue: mode) else { throw Invalid(description: "sslmode: disable, prefer or require, not '\(mode)'") }
                tls = value
            case ("application_name", let name): applicationName = name
            case (let key, _): throw Invalid(description: "unknown parameter '\(key)' (sslmode and application_name are understood)")
            }
        }
    }

    /// Where it is, for errors and logs: never the password.
    public var redactedDescription: String {
        "postgres://\(username)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }

    /// The URL with its password hidden, for logs and errors.
    public static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://"), scheme.upperBound < at else { return url }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }

    private static func decoded(_ text: Substring, _ what: String) throws -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(), let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { throw Invalid(description: "bad percent-escape in the \(what)") }
            bytes.append(value)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
