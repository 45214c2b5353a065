import Foundation
import OutpostWire

/// What can go wrong in the client library, typed so callers can pattern-match.
public enum ClientError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The server answered an ArcGIS error (`{"error": {"code", "message", "details"}}`).
    case server(code: Int, message: String, details: [String])
    /// An HTTP status without an ArcGIS error body.
    case http(status: Int, url: String)
    /// The server could not be reached within the retry window.
    case network(String)
    /// The server answered something this library does not understand.
    case invalidResponse(String)
    /// A local file is not a replica, or is not in a state for the operation.
    case geodatabase(String)
    /// A transaction is open on the geodatabase: a sync cannot start (and vice versa).
    case transactionInProgress
    case syncInProgress
    /// No transaction is open.
    case noTransaction
    /// The job was cancelled.
    case cancelled
    /// The service cannot do what was asked (not sync-enabled, no per-layer sync, …).
    case unsupported(String)

    public var description: String {
        switch self {
        case .server(let code, let message, let details):
            "server error \(code): \(message)\(details.isEmpty ? "" : " (" + details.joined(separator: "; ") + ")")"
        case .http(let status, let url): "HTTP \(status) from \(url)"
        case .network(let reason): "network: \(reason)"
        case .invalidResponse(let reason): "invalid response: \(reason)"
        case .geodatabase(let reason): "geodatabase: \(reason)"
        case .transactionInProgress: "a transaction is open on the geodatabase: commit or roll it back before syncing"
        case .syncInProgress: "a sync is running on the geodatabase: start a transaction when it has finished"
        case .noTransaction: "no transaction is open"
        case .cancelled: "the job was cancelled"
        case .unsupported(let reason): "unsupported: \(reason)"
        }
    }

    /// The server was restored from a backup taken before this replica's last sync: it never
    /// gave the replica the generation the file holds (409, docs/operations.md, "After a
    /// restore"). Nothing was applied and the file's pending edits are kept.
    public var isReplicaAheadOfServer: Bool {
        if case .server(409, ArcGISError.replicaAheadMessage, _) = self { return true }
        return false
    }

    /// The ArcGIS error envelope of `json`, if it is one.
    static func fromEnvelope(_ json: JSONValue) -> ClientError? {
        guard let error = json["error"], !error.isNull else { return nil }
        return .server(
            code: Int(error["code"]?.int64Value ?? 500), message: error["message"]?.stringValue ?? "",
            details: error["details"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }
}
