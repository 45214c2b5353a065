import CLibPQ
import OutpostWire

/// What PostgreSQL or the connection to it refused, with the SQLSTATE to match on (GRDB's
/// `DatabaseError` style): `catch let error as PostgresError where error.sqlState == PostgresError.uniqueViolation`.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The connection could not be made or was lost: the statement may or may not have run.
        case connection
        /// The server refused the statement.
        case statement
    }

    public var kind: Kind
    public var sqlState: String?
    public var message: String
    public var detail: String?

    public init(kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
    }

    public var description: String {
        var text = "PostgreSQL: " + message
        if let sqlState { text += " [\(sqlState)]" }
        if let detail { text += " (\(detail))" }
        return text
    }

    /// The error a failed result carries.
    init(result: OpaquePointer?, connection: OpaquePointer?) {
        func field(_ code: Int32) -> String? {
            guard let result, let value = PQresultErrorField(result, code) else { return nil }
            return String(cString: value)
        }
        let state = field(Int32(UInt8(ascii: "C")))
        let primary = field(Int32(UInt8(ascii: "M")))
        let lost = connection.map { PQstatus($0) != CONNECTION_OK } ?? true
        self.init(
            kind: lost || state == nil ? .connection : .statement, sqlState: state,
            message: primary ?? connection.flatMap { PQerrorMessage($0).map { String(cString: $0) } }?.trimmed ?? "no answer",
            detail: field(Int32(UInt8(ascii: "D"))))
    }
}

/// SQLSTATE codes Outpost reacts to (PostgreSQL's appendix A).
extension PostgresError {
    public static let uniqueViolation = "23505"
    public static let serializationFailure = "40001"
    public static let deadlockDetected = "40P01"
    public static let undefinedTable = "42P01"
}

extension String {
    fileprivate var trimmed: String {
        var text = self
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}

/// How a request PostgreSQL failed is answered: while the database cannot be reached or is
/// shutting down or starting (SQLSTATE classes 08 and 57), ArcGIS's 503, which clients retry;
/// anything else a server fault whose details stay in the log.
extension PostgresError: ArcGISErrorConvertible {
    public var isUnavailable: Bool {
        kind == .connection || ["08", "57"].contains(sqlState?.prefix(2) ?? "")
    }

    public var arcGISError: ArcGISError {
        isUnavailable
            ? ArcGISError(
                kind: .unavailable, message: "Service unavailable.", details: ["The database cannot be reached at the moment; retry shortly."])
            : .internalError("An unexpected error occurred; the server log has its details.")
    }
}
