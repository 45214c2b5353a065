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
    /// Headers that carry credentials (lowercase).
    static let secretHeaders: Set<String> = ["authorization", "x-esri-authorization", "cookie", "set-cookie"]

    /// Whether a parameter named `name` holds a secret: one of `secretNames`, or any name with
    /// `secret`, `password` or `token` in it (`new_password`, `client_secret2`, `access_token`).
    static func isSecret(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return secretNames.contains(lowered) || ["secret", "password", "token"].contains { lowered.contains($0) }
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

    /// Headers in order, credentials masked, values capped.
    static func masked(headers: [(String, String)]) -> [JournalParameter] {
        headers.prefix(maximumCount).map { JournalParameter(name: $0.0, keeping: $0.1, secret: secretHeaders.contains($0.0.lowercased())) }
    }

    /// Roughly what the entry holds in memory, for the journal's byte budget.
    var bytes: Int { name.utf8.count + value.utf8.count + 32 }
}
