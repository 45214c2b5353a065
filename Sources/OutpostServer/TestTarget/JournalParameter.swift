import Foundation
import OutpostWire

/// One parameter (or header) as the journal keeps it: a secret's value masked as `***`, any
/// other value cut to `maximumBytes` so a large `edits` cannot fill the journal's memory.
struct JournalParameter: Sendable, Equatable {
    var name: String
    var value: String
    /// The value's size in bytes when it was cut; nil when kept whole.
    var truncatedFrom: Int?

    static let mask = "***"
    /// The most bytes of a value kept: 4 KiB.
    static let maximumBytes = 4096
    /// The most parameters (or headers) kept of one request.
    static let maximumCount = 200

    /// Parameters whose values are credentials, whatever the operation (lowercase).
    static let secretNames: Set<String> = [
        "token", "password", "client_secret", "refresh_token", "code", "code_verifier", "apikey", "api_key",
    ]
    /// Headers that carry credentials (lowercase), besides any name `isSecretHeader` matches by a part.
    static let secretHeaders: Set<String> = [
        "authorization", "proxy-authorization", "x-esri-authorization", "cookie", "set-cookie", "x-api-key",
    ]
    /// Parts of a header's name that make it a credential's (`X-Auth-Token`, `X-Client-Secret`).
    static let secretHeaderParts = ["token", "secret", "api-key", "apikey", "auth"]
    /// Headers whose value is a URL: its query and fragment are masked as a request's parameters.
    static let urlHeaders: Set<String> = ["referer", "location", "content-location"]

    /// Whether a parameter named `name` holds a secret: one of `secretNames`, or any name with
    /// `secret`, `password` or `token` in it (`new_password`, `client_secret2`, `access_token`).
    static func isSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return secretNames.contains(lowered) || ["secret", "password", "token"].contains { lowered.contains($0) }
    }

    /// Whether a header named `name` carries a credential: one of `secretHeaders`, or any name
    /// with one of `secretHeaderParts` in it.
    static func isSecretHeader(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return secretHeaders.contains(lowered) || secretHeaderParts.contains { lowered.contains($0) }
    }

    /// `url` with the values of its query's and fragment's secret parameters (`isSecret`, the
    /// rule of a request's own parameters) masked: a `Referer` of a page opened as `?token=…`,
    /// an OAuth redirect's `?code=…` or `#access_token=…`. The rest is kept as written.
    static func maskingSecrets(inURL url: String) -> String {
        var result = ""
        var rest = Substring(url)
        // The part before the query (or the fragment) is kept; then each `?…` and `#…` part.
        let base = rest.prefix { $0 != "?" && $0 != "#" }
        result += base
        rest = rest[base.endIndex...]
        while let separator = rest.first {
            let part = rest.dropFirst().prefix { $0 != "#" || separator == "#" }
            result.append(separator)
            result += maskingSecrets(inPairs: part)
            rest = rest[part.endIndex...]
        }
        return result
    }

    /// `name=value&…` with each secret parameter's value masked (its name percent-decoded first).
    static func maskingSecrets(inPairs text: Substring) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let rawName = pair[..<equals]
            let name = String(rawName).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(rawName)
            return isSecret(name) ? "\(rawName)=\(mask)" : String(pair)
        }.joined(separator: "&")
    }

    init(name: String, value: String, truncatedFrom: Int? = nil) {
        self.name = name
        self.value = value
        self.truncatedFrom = truncatedFrom
    }

    /// `value` as kept: masked when `secret`, else at most `maximumBytes` (cut on a character).
    init(name: String, keeping value: String, secret: Bool) {
        guard !secret else {
            self.init(name: name, value: Self.mask)
            return
        }
        let size = value.utf8.count
        guard size > Self.maximumBytes else {
            self.init(name: name, value: value)
            return
        }
        var kept = Substring(value)
        while kept.utf8.count > Self.maximumBytes { kept = kept.dropLast(max(1, (kept.utf8.count - Self.maximumBytes) / 4)) }
        self.init(name: name, value: String(kept), truncatedFrom: size)
    }

    /// A form's parameters, by name (lowercase, as `RequestParameters` keeps them), masked and capped.
    static func masked(_ parameters: RequestParameters) -> [JournalParameter] {
        parameters.names.prefix(maximumCount).map { name in
            JournalParameter(name: name, keeping: parameters[name] ?? "", secret: isSecret(name))
        }
    }

    /// Query-string pairs in order, masked and capped.
    static func masked(pairs: [(String, String)]) -> [JournalParameter] {
        pairs.prefix(maximumCount).map { JournalParameter(name: $0.0, keeping: $0.1, secret: isSecret($0.0)) }
    }

    /// Headers in order, credentials masked (whole, or a URL's secret parameters), values capped.
    static func masked(headers: [(String, String)]) -> [JournalParameter] {
        headers.prefix(maximumCount).map { name, value in
            let kept = urlHeaders.contains(name.lowercased()) ? maskingSecrets(inURL: value) : value
            return JournalParameter(name: name, keeping: kept, secret: isSecretHeader(name))
        }
    }

    /// Roughly what the entry holds in memory, for the journal's byte budget.
    var bytes: Int { name.utf8.count + value.utf8.count + 32 }
}
