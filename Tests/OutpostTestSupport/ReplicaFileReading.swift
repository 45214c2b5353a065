import Foundation
import GRDB

/// Reads replica files (packages, device copies, deltas) in tests with plain SQL.
public enum ReplicaFileReading {
    /// Layer `layerId`'s features: upper-cased GlobalID → `name`.
    public static func names(_ path: String, layerId: Int = 0) throws -> [String: String] {
        try DatabaseQueue(path: path).read { db in
            let table = try String.fetchOne(db, sql: "SELECT table_name FROM outpost_sync_layers WHERE layer_id = ?", arguments: [layerId]) ?? ""
            return Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT GlobalID, name FROM \"\(table)\"").map {
                    (($0[0] as String).uppercased(), ($0[1] as String?) ?? "")
                })
        }
    }

    /// Layer `layerId`'s attachments in attachment id order: name and bytes.
    public static func attachments(_ path: String, layerId: Int = 0) throws -> [(name: String, data: Data)] {
        try DatabaseQueue(path: path).read { db in
            guard
                let table = try String.fetchOne(db, sql: "SELECT attachment_table FROM outpost_sync_layers WHERE layer_id = ?", arguments: [layerId])
            else { return [] }
            return try Row.fetchAll(db, sql: "SELECT ATT_NAME, data FROM \"\(table)\" ORDER BY ATTACHMENTID").map { ($0[0], $0[1]) }
        }
    }
}
