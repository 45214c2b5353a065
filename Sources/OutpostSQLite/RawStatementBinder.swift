import Foundation
import GRDB
import GRDBSQLite

/// Binds and steps a prepared GRDB statement through the SQLite C API.
///
/// Only for bulk paths: building `StatementArguments` per row costs more than the insert
/// itself at a million rows (a generic key-path map per call). Text and blobs are copied by
/// SQLite (`SQLITE_TRANSIENT`), so the values need not outlive the call.
public struct RawStatementBinder {
    public let statement: Statement

    public init(statement: Statement) { self.statement = statement }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    public func execute(_ values: [DatabaseValue], db: Database) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let rc: Int32
            switch value.storage {
            case .null: rc = sqlite3_bind_null(handle, position)
            case .int64(let i): rc = sqlite3_bind_int64(handle, position, i)
            case .double(let d): rc = sqlite3_bind_double(handle, position, d)
            case .string(let s): rc = sqlite3_bind_text(handle, position, s, -1, Self.transient)
            case .blob(let data):
                rc = data.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(handle, position, bytes.baseAddress, Int32(bytes.count), Self.transient)
                }
            }
            guard rc == SQLITE_OK else { throw failure(rc, db: db) }
        }
        let rc = sqlite3_step(handle)
        guard rc == SQLITE_DONE else {
            let error = failure(rc, db: db)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Binds integers then one blob lent for the call (no `Data` made per row), and steps.
    public func execute(_ integers: [Int64], blob: UnsafeRawBufferPointer, db: Database) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        for (index, value) in integers.enumerated() {
            let rc = sqlite3_bind_int64(handle, Int32(index + 1), value)
            guard rc == SQLITE_OK else { throw failure(rc, db: db) }
        }
        let rc = sqlite3_bind_blob(
            handle, Int32(integers.count + 1), blob.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(blob.count), Self.transient)
        guard rc == SQLITE_OK else { throw failure(rc, db: db) }
        let step = sqlite3_step(handle)
        guard step == SQLITE_DONE else {
            let error = failure(step, db: db)
            sqlite3_reset(handle)
            throw error
        }
    }

    private func failure(_ rc: Int32, db: Database) -> DatabaseError {
        let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite error \(rc)"
        return DatabaseError(resultCode: ResultCode(rawValue: rc), message: message, sql: statement.sql)
    }
}
