import OutpostWire

/// Which journal entries a request asks for (`journal`, `journal/count`, `journal/verify`'s
/// `pattern`): every filter given must hold. A pure value: parsed once, matched per entry.
struct JournalQuery: Sendable, Equatable {
    var operation: String?
    var service: String?
    var method: String?
    var status: Int?
    var errorCode: Int?
    var replicaId: String?
    /// Only entries after this sequence number (exclusive): a poller's last seen `last`.
    var since: Int64?
    /// At most this many entries (1 to `maximumLimit`).
    var limit: Int?
    /// `verify` only: parameters whose values (as kept, masked) must equal these.
    var parameters: [JournalParameter] = []

    static let maximumLimit = 10_000
    static let textFilters = ["operation", "service", "method", "replicaId"]
    static let numberFilters = ["status", "errorCode", "since", "limit"]

    /// From a request's parameters; a bad filter is a 400 naming it.
    static func parse(_ parameters: RequestParameters) throws -> JournalQuery {
        var query = JournalQuery()
        for name in textFilters { try query.set(name, text: parameters.string(name)) }
        for name in numberFilters { try query.set(name, number: parameters.string(name)) }
        return query
    }

    /// From `verify`'s `pattern`: a JSON object of the same filters plus `parameters: {name: value}`.
    static func parse(pattern text: String?) throws -> JournalQuery {
        let help = #"a JSON object of journal filters, e.g. {"operation":"applyEdits","parameters":{"f":"json"}}."#
        guard let text, case .object(let pattern)? = try? JSONParser.parse(text) else { throw ArcGISError.invalidParameter("pattern", help) }
        var query = JournalQuery()
        for (key, value) in pattern {
            if let name = textFilters.first(where: { $0.lowercased() == key.lowercased() }) {
                guard case .string(let text) = value else { throw ArcGISError.invalidParameter(key, "a string.") }
                try query.set(name, text: text)
            } else if let name = numberFilters.first(where: { $0.lowercased() == key.lowercased() }) {
                guard let number = value.int64Value else { throw ArcGISError.invalidParameter(key, "an integer.") }
                try query.set(name, number: String(number))
            } else if key.lowercased() == "parameters", case .object(let wanted) = value {
                query.parameters = wanted.map { JournalParameter(name: $0.key, value: $0.value.stringValue ?? $0.value.jsonText) }
            } else {
                throw ArcGISError.invalidParameter("pattern", "unknown field \(key): " + help)
            }
        }
        return query
    }

    private mutating func set(_ name: String, text: String?) throws {
        guard let text else { return }
        guard text.utf8.count <= 1024 else { throw ArcGISError.invalidParameter(name, "at most 1024 bytes.") }
        switch name {
        case "operation": operation = text
        case "service": service = text
        case "method": method = text.uppercased()
        default: replicaId = text
        }
    }

    private mutating func set(_ name: String, number text: String?) throws {
        guard let text else { return }
        guard let number = Int64(text) else { throw ArcGISError.invalidParameter(name, "an integer.") }
        switch name {
        case "status":
            guard (100...599).contains(number) else { throw ArcGISError.invalidParameter(name, "an HTTP status, 100 to 599.") }
            status = Int(number)
        case "errorCode":
            guard (0...99_999).contains(number) else { throw ArcGISError.invalidParameter(name, "an ArcGIS error code.") }
            errorCode = Int(number)
        case "since":
            guard number >= 0 else { throw ArcGISError.invalidParameter(name, "a sequence number, 0 or more.") }
            since = number
        default:
            guard (1...Int64(Self.maximumLimit)).contains(number) else {
                throw ArcGISError.invalidParameter(name, "1 to \(Self.maximumLimit).")
            }
            limit = Int(number)
        }
    }

    /// Whether `entry` passes every filter but `since` and `limit` (the journal applies those).
    func matches(_ entry: JournalEntry) -> Bool {
        if let operation, entry.operation.lowercased() != operation.lowercased() { return false }
        if let service, entry.service?.lowercased() != service.lowercased() { return false }
        if let method, entry.method != method { return false }
        if let status, entry.status != status { return false }
        if let errorCode, entry.errorCode != errorCode { return false }
        if let replicaId {
            // Replica ids compare as GlobalIDs do: braces and case aside.
            guard let kept = entry.replicaId, (GlobalID.normalize(kept) ?? kept) == (GlobalID.normalize(replicaId) ?? replicaId) else { return false }
        }
        return parameters.allSatisfy { entry.parameter($0.name) == $0.value }
    }
}
