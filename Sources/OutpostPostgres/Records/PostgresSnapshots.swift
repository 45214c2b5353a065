import Foundation
import OutpostStorage
import OutpostSync

/// Snapshots of a PostgreSQL store (`StateSnapshots`; docs/decisions.md, "Test target
/// snapshots"): the rows in a schema of their own, `outpost_snapshot_<digest of the name>`,
/// a copy of every Outpost table (`LIKE … INCLUDING ALL`, then its rows) with the sequences'
/// positions and the triggers and foreign keys a dropped table is made again with;
/// the data folder's files under `<data>/snapshots/<name>/` (`SnapshotFiles`). `CREATE
/// DATABASE … TEMPLATE` would copy faster but needs the live database without connections,
/// which a serving pool never is. A restore is one transaction: every table's rows deleted
/// and copied back (MVCC-safe, unlike TRUNCATE: a reader sees the old rows or the new),
/// tables made after the snapshot dropped and tables dropped since made again, sequences set
/// back, the catalog's version moved on.
/// Table names come from the catalogue (`pg_class`), never from the request.
public struct PostgresSnapshots: StateSnapshots {
    let pool: PostgresPool
    let directory: String
    let blobs: BlobFiles
    let clock: any WallClock
    static let backend = "postgres"
    static let sequencesTable = "_outpost_snapshot_sequences"
    static let describeTable = "_outpost_snapshot"

    var shelf: SnapshotShelf { SnapshotShelf(data: directory) }

    /// The schema holding `name`'s rows: a digest of the name (FNV-1a), so any valid name
    /// fits PostgreSQL's 63-byte identifiers; the name itself is kept inside and compared.
    static func schema(of name: SnapshotName) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "outpost_snapshot_" + String(hash, radix: 16)
    }

    func checkLocalFiles() throws {
        guard !blobs.isRemote else {
            throw SnapshotError.unsupported(
                "snapshots of a store whose files are in an object store are not supported yet: serve the test target with a data folder")
        }
    }

    public func save(_ name: SnapshotName) throws -> SnapshotInfo {
        try checkLocalFiles()
        let schema = Self.schema(of: name)
        let created = clock.milliseconds()
        let shelf = shelf
        let partial = try shelf.makePartial(name)
        do {
            try pool.transaction(.repeatableRead) { connection in
                try connection.query("DROP SCHEMA IF EXISTS \(identifier: schema) CASCADE")
                try connection.query("CREATE SCHEMA \(identifier: schema)")
                for table in try Self.tables(in: nil, on: connection) {
                    // With the table's columns, defaults, identity and indexes, so a restore can make it again.
                    try connection.query("CREATE TABLE \(identifier: schema).\(identifier: table) (LIKE \(identifier: table) INCLUDING ALL)")
                    try connection.query(
                        "INSERT INTO \(identifier: schema).\(identifier: table) OVERRIDING SYSTEM VALUE SELECT * FROM \(identifier: table)")
                }
                try Self.saveDefinitions(into: schema, on: connection)
                try connection.query(
                    "CREATE TABLE \(identifier: schema).\(identifier: Self.sequencesTable) (name text, last_value bigint, is_called boolean)")
                for sequence in try Self.sequences(on: connection) {
                    try connection.query(
                        """
                        INSERT INTO \(identifier: schema).\(identifier: Self.sequencesTable)
                        SELECT \(sequence), last_value, is_called FROM \(identifier: sequence)
                        """)
                }
                try connection.query("CREATE TABLE \(identifier: schema).\(identifier: Self.describeTable) (name text, created bigint)")
                try connection.query("INSERT INTO \(identifier: schema).\(identifier: Self.describeTable) VALUES (\(name.text), \(created))")
                // The files while the rows' snapshot is held: a file put after it is an orphan at worst.
                try SnapshotFiles.save(data: directory, into: (partial as NSString).appendingPathComponent(SnapshotShelf.filesFolder))
            }
            try shelf.publish(partial, name: name, backend: Self.backend, created: created)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        return SnapshotInfo(name: name.text, created: created, bytes: SnapshotFiles.size(of: shelf.folder(of: name)) + (try rowBytes(name)))
    }

    public func restore(_ name: SnapshotName) throws {
        try restore(name, files: try shelf.existing(name))
    }

    /// A folder saved by this backend names a snapshot whose rows are in its database: the
    /// folder's name is the snapshot's, and that snapshot must be in this database.
    public func restore(folder: String) throws {
        guard let facts = SnapshotShelf.describe(folder) else { throw SnapshotError.notFound(folder) }
        guard facts.backend == Self.backend else {
            throw SnapshotError.unsupported("\(folder) is a snapshot of the \(facts.backend) backend, not of PostgreSQL")
        }
        try restore(try SnapshotName((folder as NSString).lastPathComponent), files: folder)
    }

    func restore(_ name: SnapshotName, files: String) throws {
        try checkLocalFiles()
        let schema = Self.schema(of: name)
        let staged = try SnapshotFiles.stage((files as NSString).appendingPathComponent(SnapshotShelf.filesFolder), into: directory)
        defer { staged.discard() }
        try pool.transaction { connection in
            guard try Self.savedName(schema, on: connection) == name.text else { throw SnapshotError.notFound(name.text) }
            let live = try Self.tables(in: nil, on: connection)
            let saved = try Self.tables(in: schema, on: connection).filter { !$0.hasPrefix("_outpost_snapshot") }
            // Tables dropped since (a service deleted) are made again from their saved copies.
            let missing = Set(saved).subtracting(live).sorted()
            for table in missing {
                try connection.query("CREATE TABLE \(identifier: table) (LIKE \(identifier: schema).\(identifier: table) INCLUDING ALL)")
            }
            let version = try connection.query("SELECT version FROM outpost_catalog_version").first?.int64(0) ?? 0
            let order = try Self.parentsFirst(saved, on: connection)
            let list = order.map { PostgresQuery.quoted(identifier: $0) }.joined(separator: ", ")
            // Writers wait behind the restore, as behind any write; readers go on with the old rows.
            try connection.query("LOCK TABLE \(unescaped: list) IN SHARE ROW EXCLUSIVE MODE")
            for table in Set(live).subtracting(saved).sorted() { try connection.query("DROP TABLE \(identifier: table) CASCADE") }
            for table in order { try connection.query("ALTER TABLE \(identifier: table) DISABLE TRIGGER USER") }
            for table in order.reversed() { try connection.query("DELETE FROM \(identifier: table)") }
            for table in order {
                let columns = try Self.columns(of: table, in: schema, on: connection).map(PostgresQuery.quoted(identifier:))
                    .joined(separator: ", ")
                try connection.query(
                    """
                    INSERT INTO \(identifier: table) (\(unescaped: columns)) OVERRIDING SYSTEM VALUE
                    SELECT \(unescaped: columns) FROM \(identifier: schema).\(identifier: table)
                    """)
            }
            for table in order { try connection.query("ALTER TABLE \(identifier: table) ENABLE TRIGGER USER") }
            try Self.restoreDefinitions(of: missing, from: schema, on: connection)
            try connection.query(
                """
                SELECT setval(quote_ident(s.name), s.last_value, s.is_called)
                FROM \(identifier: schema).\(identifier: Self.sequencesTable) s WHERE to_regclass(quote_ident(s.name)) IS NOT NULL
                """)
            // A version no process has held: each reloads its catalog at its next read.
            try connection.query("UPDATE outpost_catalog_version SET version = \(version + 1)")
            try staged.swap()
        }
    }

    public func list() throws -> [SnapshotInfo] {
        try shelf.list { name in (try? rowBytes(name)) ?? 0 }.filter { info in
            guard let name = try? SnapshotName(info.name) else { return false }
            return (try? pool.withConnection { try Self.savedName(Self.schema(of: name), on: $0) }) == info.name
        }
    }

    public func delete(_ name: SnapshotName) throws {
        _ = try shelf.existing(name)
        try pool.query("DROP SCHEMA IF EXISTS \(identifier: Self.schema(of: name)) CASCADE")
        try shelf.delete(name)
    }
}

extension PostgresBackend {
    public var snapshots: PostgresSnapshots { PostgresSnapshots(pool: pool, directory: directory, blobs: blobs, clock: clock) }
}
