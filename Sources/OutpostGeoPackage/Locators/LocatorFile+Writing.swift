import Foundation
import GRDB
import OutpostGeocoding

extension LocatorFile {
    /// Writes a locator file anew at `path`: the locator's row (`definition` is its stored
    /// JSON), then every row `rows` hands on, then each text index merged into one segment
    /// (FTS5's `optimize`: fewer pages to read on a device). The file is a scratch file until
    /// it is whole, so it is written without a journal.
    public static func write(
        to path: String, name: String, definition: String, builtAt: Int64,
        rows: (_ emit: (LocatorEntryRow) throws -> Void) throws -> Void
    ) throws {
        try? FileManager.default.removeItem(atPath: path)
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
            try db.execute(sql: "PRAGMA application_id = \(applicationId); PRAGMA user_version = \(formatVersion)")
            try db.inTransaction {
                try db.execute(sql: LocatorTables.schema)
                try db.execute(
                    sql: "INSERT INTO outpost_locators(name, definition, built_at) VALUES (?, ?, ?)", arguments: [name, definition, builtAt])
                let inserter = try LocatorTables.Inserter(db, locator: name)
                try rows { try inserter.insert($0) }
                for table in ["outpost_locator_words", "outpost_locator_trigrams"] {
                    try db.execute(sql: "INSERT INTO \(table)(\(table)) VALUES ('optimize')")
                }
                return .commit
            }
        }
    }
}
