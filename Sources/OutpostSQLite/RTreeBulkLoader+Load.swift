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
        var writer = try ShadowTableWriter(table: table, db: db)
        for node in tree.nodes { try writer.node(node.nodeno, node.data) }
        for row in tree.rowids { try writer.rowid(row.rowid, leaf: row.nodeno) }
        for row in tree.parents { try writer.parent(of: row.nodeno, row.parent) }
        try writer.finish()
    }
}

/// Writes an R*Tree's shadow tables, emptied first. `_rowid` rows go in batches: SQLite's
/// per-statement work (reset, step, the insert's set-up) was most of a million single-row
/// inserts. Give rowids in ascending order: then each batch is an append.
struct ShadowTableWriter {
    static let batch = 256
    private let db: Database
    private let insertNode: RawStatementBinder
    private let insertParent: RawStatementBinder
    private let insertRowids: RawStatementBinder
    private let insertRowid: RawStatementBinder
    private var pending: [DatabaseValue] = []

    init(table: String, db: Database) throws {
        self.db = db
        let node = "\(table)_node".quotedDatabaseIdentifier
        let rowid = "\(table)_rowid".quotedDatabaseIdentifier
        let parent = "\(table)_parent".quotedDatabaseIdentifier
        for shadow in [node, rowid, parent] { try db.execute(sql: "DELETE FROM \(shadow)") }
        insertNode = RawStatementBinder(statement: try db.makeStatement(sql: "INSERT INTO \(node)(nodeno, data) VALUES (?, ?)"))
        insertParent = RawStatementBinder(statement: try db.makeStatement(sql: "INSERT INTO \(parent)(nodeno, parentnode) VALUES (?, ?)"))
        insertRowids = RawStatementBinder(
            statement: try db.makeStatement(
                sql: "INSERT INTO \(rowid)(rowid, nodeno) VALUES " + Array(repeating: "(?, ?)", count: Self.batch).joined(separator: ", ")))
        insertRowid = RawStatementBinder(statement: try db.makeStatement(sql: "INSERT INTO \(rowid)(rowid, nodeno) VALUES (?, ?)"))
        pending.reserveCapacity(2 * Self.batch)
    }

    func node(_ nodeno: Int64, _ data: [UInt8]) throws {
        try insertNode.execute([nodeno.databaseValue, Data(data).databaseValue], db: db)
    }

    func parent(of nodeno: Int64, _ parent: Int64) throws {
        try insertParent.execute([nodeno.databaseValue, parent.databaseValue], db: db)
    }

    mutating func rowid(_ rowid: Int64, leaf nodeno: Int64) throws {
        pending.append(rowid.databaseValue)
        pending.append(nodeno.databaseValue)
        if pending.count == 2 * Self.batch {
            try insertRowids.execute(pending, db: db)
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// Writes the rowids still pending.
    func finish() throws {
        for start in stride(from: 0, to: pending.count, by: 2) { try insertRowid.execute(Array(pending[start..<start + 2]), db: db) }
    }
}
