import Foundation
import GRDB

extension RTreeBulkLoader {
    /// Replaces the contents of the R*Tree virtual table `table` with a packed tree over
    /// `entries`, writing its shadow tables (`<table>_node`, `_rowid`, `_parent`) directly.
    /// Works for any 2-D SQLite R*Tree: SpatiaLite's `idx_*` and GeoPackage's `rtree_*`.
    public static func load(_ entries: [Entry], into table: String, db: Database) throws {
        try write(RTreeBulkLoader(nodeSize: try nodeSize(of: table, db: db)).build(entries), into: table, db: db)
    }

    /// The node size of the R*Tree virtual table `table` (its root blob's length).
    public static func nodeSize(of table: String, db: Database) throws -> Int {
        let nodeSize = try Int.fetchOne(db, sql: "SELECT length(data) FROM \("\(table)_node".quotedDatabaseIdentifier) WHERE nodeno = 1") ?? 0
        guard nodeSize > 28 else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "unexpected R*Tree node size \(nodeSize) for \(table)")
        }
        return nodeSize
    }

    /// Replaces the contents of `table` with a tree `build` made (possibly on another thread,
    /// while the connection did other work).
    public static func write(_ tree: consuming Tree, into table: String, db: Database) throws {
        // In rowid order the `_rowid` inserts are appends; in the tree's spatial order each
        // one is a random B-tree descent.
        if !tree.rowids.indices.dropFirst().allSatisfy({ tree.rowids[$0 - 1].rowid < tree.rowids[$0].rowid }) {
            tree.rowids.sort { $0.rowid < $1.rowid }
        }
        try db.execute(sql: "DELETE FROM \("\(table)_node".quotedDatabaseIdentifier)")
        try db.execute(sql: "DELETE FROM \("\(table)_rowid".quotedDatabaseIdentifier)")
        try db.execute(sql: "DELETE FROM \("\(table)_parent".quotedDatabaseIdentifier)")
        let insertNode = RawStatementBinder(
            statement: try db.makeStatement(sql: "INSERT INTO \("\(table)_node".quotedDatabaseIdentifier)(nodeno, data) VALUES (?, ?)"))
        for node in tree.nodes { try insertNode.execute([node.nodeno.databaseValue, Data(node.data).databaseValue], db: db) }
        // A statement per 256 rows: SQLite's per-statement work (reset, step, the insert's
        // set-up) was most of a million single-row inserts.
        let rowidTable = "\(table)_rowid".quotedDatabaseIdentifier
        let batch = 256
        let insertBatch = RawStatementBinder(
            statement: try db.makeStatement(
                sql: "INSERT INTO \(rowidTable)(rowid, nodeno) VALUES " + Array(repeating: "(?, ?)", count: batch).joined(separator: ", ")))
        let insertOne = RawStatementBinder(statement: try db.makeStatement(sql: "INSERT INTO \(rowidTable)(rowid, nodeno) VALUES (?, ?)"))
        var values = [DatabaseValue](repeating: .null, count: 2 * batch)
        var start = 0
        while start + batch <= tree.rowids.count {
            for offset in 0..<batch {
                values[2 * offset] = tree.rowids[start + offset].rowid.databaseValue
                values[2 * offset + 1] = tree.rowids[start + offset].nodeno.databaseValue
            }
            try insertBatch.execute(values, db: db)
            start += batch
        }
        for row in tree.rowids[start...] { try insertOne.execute([row.rowid.databaseValue, row.nodeno.databaseValue], db: db) }
        let insertParent = RawStatementBinder(
            statement: try db.makeStatement(sql: "INSERT INTO \("\(table)_parent".quotedDatabaseIdentifier)(nodeno, parentnode) VALUES (?, ?)"))
        for row in tree.parents { try insertParent.execute([row.nodeno.databaseValue, row.parent.databaseValue], db: db) }
    }
}
