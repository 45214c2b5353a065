import Foundation
import GRDB
import GRDBSQLite

/// Steps a prepared statement and reads columns through the SQLite C API.
///
/// For bulk reads (replica snapshots of a million rows): GRDB's `Row` builds a dictionary-like
/// value per row; this reads each column in place. The statement must stay alive (and the
/// database connection in use) for the whole iteration.
public struct RawRowReader {
    public let statement: Statement
    private var handle: OpaquePointer { statement.sqliteStatement }

    public init(statement: Statement, arguments: StatementArguments = StatementArguments()) throws {
        self.statement = statement
        try statement.setArguments(arguments)
        sqlite3_reset(statement.sqliteStatement)
    }

    /// Advances to the next row; false after the last one.
    public func step(db: Database) throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite error \(rc)"
        throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: message, sql: statement.sql)
    }

    /// Ends the statement's run. A cached statement left part-way (a page cut short) would keep
    /// its read transaction, and so its snapshot, open on the connection.
    public func reset() { sqlite3_reset(handle) }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    public func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// A column's storage class in the current row.
    public enum StorageClass { case null, integer, real, text, blob }

    public func storageClass(_ column: Int32) -> StorageClass {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// The column's bytes (empty for a zero-length blob, nil for NULL).
    public func bytes(_ column: Int32) -> [UInt8]? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The column as a `DatabaseValue` (its SQLite storage class).
    public func value(_ column: Int32) -> DatabaseValue {
        switch storageClass(column) {
        case .integer: int64(column).databaseValue
        case .real: double(column).databaseValue
        case .text: (text(column) ?? "").databaseValue
        case .blob: Data(bytes(column) ?? []).databaseValue
        case .null: .null
        }
    }
}

extension RawRowReader {
    /// The column's bytes lent to `body` without a copy (empty for NULL or a zero-length
    /// blob); valid only during the call.
    public func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
