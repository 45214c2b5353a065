import Foundation
import OutpostWire

/// One request a test target answered, as its journal keeps it (docs/testing-your-app.md,
/// "Journal"): what was asked (parameters masked and capped), what was answered, how long it
/// took, and the facts the inner layers noted (error code, replica, generations, user, fault).
struct JournalEntry: Sendable {
    /// From 1, in the order requests were answered; never reused, even after a clear.
    var seq: Int64 = 0
    /// When the request arrived, by the server's (test target's) clock, epoch milliseconds.
    var time: Int64
    var method: String
    var path: String
    var operation: String
    var service: String?
    var layer: Int?
    var parameters: [JournalParameter] = []
    var uploads: [JournalUpload] = []
    var status: Int
    var errorCode: Int?
    var durationMs: Double
    var replicaId: String?
    var generations: [Int: Int64]?
    var user: String?
    var fault: String?
    /// For the HAR export: the URL (query masked), the query pairs, the headers both ways.
    var url: String = ""
    var query: [JournalParameter] = []
    var requestHeaders: [JournalParameter] = []
    var responseHeaders: [JournalParameter] = []
    var responseBytes: Int?

    /// The value of parameter `name` (any case), as kept.
    func parameter(_ name: String) -> String? {
        let lowered = name.lowercased()
        return parameters.first { $0.name.lowercased() == lowered }?.value
    }

    /// Roughly what the entry holds in memory, for the journal's byte budget.
    var bytes: Int {
        let lists = [parameters, query, requestHeaders, responseHeaders].joined().reduce(0) { $0 + $1.bytes }
        return 512 + path.utf8.count + url.utf8.count + lists + uploads.count * 160
    }

    /// The entry as the journal's routes answer it.
    var json: JSONValue {
        var object: JSONObject = [
            "seq": .int(seq), "time": .int(time), "method": .string(method), "path": .string(path), "operation": .string(operation),
            "service": service.map(JSONValue.string) ?? .null, "layer": layer.map { .int(Int64($0)) } ?? .null,
            "parameters": .object(JSONObject(parameters.map { (key: $0.name, value: .string($0.value)) })),
            "uploads": .array(uploads.map(\.json)),
            "status": .int(Int64(status)), "errorCode": errorCode.map { .int(Int64($0)) } ?? .null,
            "durationMs": .double((durationMs * 1000).rounded() / 1000),
            "replicaId": replicaId.map(JSONValue.string) ?? .null,
            "generations": generations.map { gens in
                .object(JSONObject(gens.keys.sorted().map { (key: String($0), value: .int(gens[$0]!)) }))
            } ?? .null,
            "user": user.map(JSONValue.string) ?? .null,
        ]
        let truncated = parameters.filter { $0.truncatedFrom != nil }
        if !truncated.isEmpty {
            object["truncated"] = .object(JSONObject(truncated.map { (key: $0.name, value: .int(Int64($0.truncatedFrom!))) }))
        }
        if let fault { object["fault"] = .string(fault) }
        return .object(object)
    }
}

extension JournalUpload {
    var json: JSONValue {
        [
            "name": .string(name), "filename": filename.map(JSONValue.string) ?? .null, "bytes": .int(Int64(bytes)),
            "sha256": .string(sha256),
        ]
    }
}
