import Foundation
import GRDB
import OutpostGeometry
import OutpostPostgres
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostWire

/// Moves a SpatiaLite data folder's services, features, deletes, replicas and the server's
/// records (users, the portal, tile sets, upload items; `copyRecords`) into a fresh
/// PostgreSQL database so that registered devices go on syncing without noticing
/// (docs/postgres.md, "Moving a data folder"):
///
/// SpatiaLite's generations are a counter; PostgreSQL's are ticks. Rows are loaded in
/// **buckets**, one transaction per distinct generation a registered replica holds (and one
/// for the rest): bucket *i* takes the rows and tombstones last changed in `(gᵢ₋₁, gᵢ]`, and a
/// tick taken after it becomes the replica's generation in place of `gᵢ`. A replica then sees
/// exactly what it saw before and is sent exactly what it had not yet received; a row keeps
/// its creation (the transaction of the bucket holding its creation generation) and its
/// creator, so adds and updates are told apart as before.
public enum SpatiaLiteToPostgres {
    public struct Report: Sendable, Equatable {
        public var services = 0
        public var features = 0
        public var tombstones = 0
        public var attachments = 0
        public var replicas = 0
        public var buckets = 0
        /// Versions of versioned services: DEFAULT, replicas' and named ones.
        public var versions = 0
        /// Kept row versions of versioned layers, and rows of named versions not yet posted.
        public var historyRows = 0
        public var versionRows = 0
        /// Attachment and upload files put in the backend's object store (none when the
        /// backend keeps its files in the data folder, where they already are).
        public var objects = 0
        /// The server's records moved, per table (users, tokens, portal items, tile sets…).
        public var records: [String: Int] = [:]
        /// Locators and route networks built anew over the moved layers.
        public var locators = 0
        public var networks = 0
    }

    public enum Failure: Error, CustomStringConvertible {
        case notEmpty
        public var description: String { "the PostgreSQL database already holds services: migrate into an empty one" }
    }

    public static func migrate(_ store: SpatiaLiteBackend, to backend: PostgresBackend) throws -> Report {
        guard try backend.schema.catalog().services.isEmpty else { throw Failure.notEmpty }
        var report = Report()
        let files = AttachmentFiles(blobs: backend.blobs, temporaryDirectory: backend.temporaryDirectory)
        report.objects = try copyObjects(from: store, to: backend)
        let services = try store.catalog().services
        let serviceNames = services.map(\.definition.name)
        var layersByTable: [String: StoredLayer] = [:]
        for service in services {
            let created = try backend.schema.createService(service.definition)
            report.services += 1
            for (old, new) in zip(service.layers, created.layers) { layersByTable[old.tableName] = new }
        }
        let replicas = try store.replicas.allReplicas().filter { replica in services.contains { $0.definition.name == replica.serviceName } }
        let current = try store.edits.currentGeneration()
        let bases = try namedVersionBases(store, services: serviceNames)
        let boundaries = Array(Set(replicas.flatMap { $0.layers.map(\.serverGen) } + bases + [current]).filter { $0 <= current }).sorted()
        var ticks: [Int64: Int64] = [:]
        var bucketXids: [(upTo: Int64, xid: Int64)] = []
        var lower: Int64 = Int64.min
        for upper in boundaries {
            let xid = try backend.pool.transaction { connection -> Int64 in
                let xid = try connection.query("SELECT \(unescaped: GenerationTicks.stamp)").first?.int64(0) ?? 0
                // The creation stamp of a row created in an earlier bucket is that bucket's transaction.
                let created = bucketXids + [(upper, xid)]
                for service in services {
                    for old in service.layers {
                        guard let new = layersByTable[old.tableName] else { continue }
                        report.features += try copyRows(
                            old, into: new, changed: lower, upper, creations: created, store: store, connection: connection)
                        report.tombstones += try copyTombstones(
                            old, into: new, changed: lower, upper, creations: created, store: store, connection: connection)
                        guard old.definition.hasAttachments else { continue }
                        report.attachments += try copyAttachments(
                            old, into: new, changed: lower, upper, creations: created, store: store, files: files, connection: connection)
                        report.tombstones += try copyTombstones(
                            old, into: new, kind: "attachment", changed: lower, upper, creations: created, store: store, connection: connection)
                    }
                }
                return xid
            }
            bucketXids.append((upper, xid))
            ticks[upper] = try backend.pool.transaction(.repeatableRead) { try GenerationTicks.take(on: $0).tick }
            lower = upper
        }
        report.buckets = boundaries.count
        for service in services where service.definition.isVersioned {
            for old in service.layers {
                guard let new = layersByTable[old.tableName] else { continue }
                report.historyRows += try copyHistory(old, into: new, creations: bucketXids, store: store, pool: backend.pool)
                report.versionRows += try copyVersionRows(old, into: new, store: store, pool: backend.pool)
            }
        }
        for (oldTable, new) in layersByTable {
            // SQLite's AUTOINCREMENT never hands out an id again, even a deleted row's: neither may PostgreSQL.
            let issued =
                try store.read { db in try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [oldTable]) } ?? 0
            try restartIdentity(new, after: issued, pool: backend.pool)
            guard new.definition.hasAttachments else { continue }
            let attachmentsIssued =
                try store.read { db in
                    try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: ["\(oldTable)__attach"])
                } ?? 0
            try restartIdentity(table: new.attachmentTable, column: "ATTACHMENTID", after: attachmentsIssued, pool: backend.pool)
        }
        for replica in replicas {
            var moved = replica
            for index in moved.layers.indices { moved.layers[index].serverGen = ticks[moved.layers[index].serverGen] ?? ticks[current] ?? 0 }
            moved.replicaServerGen = moved.layers.map(\.serverGen).min() ?? ticks[current] ?? 0
            let origin = try store.replicas.registrationFacts(service: replica.serviceName, referenceId: replica.id).originId
            try backend.replicas.registerReplica(moved, copiedFrom: origin == replica.id ? nil : origin)
            report.replicas += 1
        }
        report.versions = try copyVersions(store, services: serviceNames, ticks: ticks, current: current, pool: backend.pool)
        try copyReceiptsAndConflicts(store, replicas: replicas, into: backend)
        // Unregistered ids stay refused: a copy of one cannot register to sync deletes it never received.
        for (id, service, at) in try store.read({ db in
            try Row.fetchAll(db, sql: "SELECT replica_id, service, unregistered_at FROM outpost_unregistered_replicas").map {
                row -> (String, String, Int64) in (row[0], row[1], row[2])
            }
        }) where services.contains(where: { $0.definition.name == service }) {
            try backend.pool.query(
                "INSERT INTO outpost_unregistered_replicas(replica_id, service, unregistered_at) VALUES (\(id), \(service), \(at)) ON CONFLICT DO NOTHING"
            )
        }
        report.records = try copyRecords(store, into: backend)
        // Locators and networks are built anew from their definitions over the moved layers, not
        // copied: their entries and graphs follow the database's change tracking, whose
        // generations are not the folder's.
        for locator in try store.locators.locators() where serviceNames.contains(locator.definition.service) {
            _ = try LocatorBuilder.build(locator.definition, in: backend)
            report.locators += 1
        }
        for network in try store.networks.networks() where serviceNames.contains(network.definition.service) {
            _ = try NetworkBuilder.build(network.definition, in: backend)
            report.networks += 1
        }
        return report
    }

    /// The bucket transaction holding generation `generation`: the first whose upper bound reaches it.
    static func creationXid(_ generation: Int64, _ creations: [(upTo: Int64, xid: Int64)]) -> Int64 {
        creations.first { generation <= $0.upTo }?.xid ?? creations.last?.xid ?? 0
    }

    /// The rows of `old` last changed in `(lower, upper]`, into `new` by COPY, ObjectIDs and
    /// GlobalIDs kept, with their creation stamp, writer and creator.
    static func copyRows(
        _ old: StoredLayer, into new: StoredLayer, changed lower: Int64, _ upper: Int64, creations: [(upTo: Int64, xid: Int64)],
        store: SpatiaLiteBackend, connection: PostgresConnection
    ) throws -> Int {
        let select = featureSelect(old, alias: "t") + ["t.outpost_created_gen", "t.outpost_replica", "g.replica_id"]
        let selected = select.joined(separator: ", ")
        let lines = try store.read { db -> [String] in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(selected) FROM \(old.tableName.quotedDatabaseIdentifier) t
                    LEFT JOIN outpost_generations g ON g.generation = t.outpost_created_gen
                    WHERE t.outpost_gen > ? AND t.outpost_gen <= ? ORDER BY t.\(old.definition.objectIdField.quotedDatabaseIdentifier)
                    """, arguments: [lower, upper]
            ).map { row in
                var (cells, next) = featureCells(row, of: old, srid: new.srid)
                cells.append(String(creationXid(row[next] as Int64? ?? 0, creations)))
                cells.append(row[next + 1] as String?)
                cells.append(row[next + 2] as String?)
                return PostgresCopy.line(cells)
            }
        }
        guard !lines.isEmpty else { return 0 }
        let columns = featureColumns(old) + ["outpost_created_xid", "outpost_replica", "outpost_created_by"]
        try connection.copyIn("COPY \(PostgresQuery.quoted(identifier: new.tableName)) (\(columns.joined(separator: ", "))) FROM STDIN") { write in
            for chunk in stride(from: 0, to: lines.count, by: 10_000) {
                try write(Array(lines[chunk..<min(lines.count, chunk + 10_000)].joined().utf8))
            }
        }
        return lines.count
    }

    /// The attachments of `old` last changed in `(lower, upper]`, ids and GlobalIDs kept. Their
    /// files stay where they are (`DATA_PATH` becomes `BLOB_KEY`); bytes SQLite held inline are
    /// written out as files first.
    static func copyAttachments(
        _ old: StoredLayer, into new: StoredLayer, changed lower: Int64, _ upper: Int64, creations: [(upTo: Int64, xid: Int64)],
        store: SpatiaLiteBackend, files: AttachmentFiles, connection: PostgresConnection
    ) throws -> Int {
        struct Moved: Sendable {
            var id: Int64, globalId: String, parent: String, contentType: String, name: String, size: Int64, keywords: String
            var path: String?, inline: Data?, created: Int64, writer: String?, creator: String?
        }
        let rows = try store.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT a.ATTACHMENTID, a.GLOBALID, a.REL_GLOBALID, a.CONTENT_TYPE, a.ATT_NAME, a.DATA_SIZE, a.KEYWORDS, a.DATA_PATH,
                        CASE WHEN a.DATA_PATH IS NULL THEN a.DATA END, a.outpost_created_gen, a.outpost_replica, g.replica_id
                    FROM \(old.attachmentTable.quotedDatabaseIdentifier) a LEFT JOIN outpost_generations g ON g.generation = a.outpost_created_gen
                    WHERE a.outpost_gen > ? AND a.outpost_gen <= ? ORDER BY a.ATTACHMENTID
                    """, arguments: [lower, upper]
            ).map { row in
                Moved(
                    id: row[0], globalId: row[1], parent: row[2], contentType: row[3], name: row[4], size: row[5], keywords: row[6] ?? "",
                    path: row[7], inline: row[8], created: row[9] ?? 0, writer: row[10], creator: row[11])
            }
        }
        for row in rows {
            let key = try row.path ?? files.adopt(bytes: [UInt8](row.inline ?? Data()))
            try connection.query(
                """
                INSERT INTO \(identifier: new.attachmentTable) ("ATTACHMENTID", "GLOBALID", "REL_GLOBALID", "CONTENT_TYPE", "ATT_NAME", "DATA_SIZE",
                    "KEYWORDS", "BLOB_KEY", outpost_created_xid, outpost_replica, outpost_created_by)
                VALUES (\(row.id), \(row.globalId), \(row.parent), \(row.contentType), \(row.name), \(row.size), \(row.keywords), \(key),
                    \(creationXid(row.created, creations)), \(row.writer), \(row.creator))
                """)
        }
        return rows.count
    }

    static func copyTombstones(
        _ old: StoredLayer, into new: StoredLayer, kind: String = "feature", changed lower: Int64, _ upper: Int64,
        creations: [(upTo: Int64, xid: Int64)], store: SpatiaLiteBackend, connection: PostgresConnection
    ) throws -> Int {
        let rows = try store.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT t.global_id, t.object_id, t.parent_global_id, t.created_generation, t.replica_id, g.replica_id
                    FROM outpost_tombstones t LEFT JOIN outpost_generations g ON g.generation = t.created_generation
                    WHERE t.service = ? AND t.layer_id = ? AND t.kind = ? AND t.generation > ? AND t.generation <= ?
                    """, arguments: [old.serviceName, old.definition.id, kind, lower, upper]
            ).map { row -> (String, Int64, String?, Int64, String?, String?) in (row[0], row[1], row[2], row[3], row[4], row[5]) }
        }
        for (globalId, objectId, parent, created, deletedBy, createdBy) in rows {
            try connection.query(
                """
                INSERT INTO outpost_tombstones(service, layer_id, kind, global_id, object_id, parent_global_id, created_xid, created_by, replica_id)
                VALUES (\(new.serviceName), \(new.definition.id), \(kind), \(globalId), \(objectId), \(parent), \(creationXid(created, creations)),
                    \(createdBy), \(deletedBy))
                """)
        }
        return rows.count
    }

    /// New ObjectIDs continue after the largest one SQLite issued or moved.
    static func restartIdentity(_ layer: StoredLayer, after issued: Int64, pool: PostgresPool) throws {
        try restartIdentity(table: layer.tableName, column: layer.definition.objectIdField, after: issued, pool: pool)
    }

    /// New ids of `column` continue after the largest one SQLite issued or moved.
    static func restartIdentity(table name: String, column: String, after issued: Int64, pool: PostgresPool) throws {
        let table = PostgresQuery.quoted(identifier: name)
        try pool.query(
            """
            SELECT setval(pg_get_serial_sequence(\(table), \(column)),
                greatest(1, \(issued), (SELECT coalesce(max(\(identifier: column)), 0) FROM \(identifier: name))))
            """)
    }

    /// Each replica's last receipt (a retry after the move is still answered from it) and the conflict log.
    static func copyReceiptsAndConflicts(_ store: SpatiaLiteBackend, replicas: [ReplicaDefinition], into backend: PostgresBackend) throws {
        let ids = replicas.map(\.id)
        let receipts = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT replica_id, fingerprint, results, recorded_at FROM outpost_sync_receipts").map {
                row -> (String, [UInt8], String, Int64) in (row[0], [UInt8](row[1] as Data), row[2], row[3])
            }
        }
        for (replica, fingerprint, results, at) in receipts where ids.contains(replica) {
            try backend.pool.query(
                """
                INSERT INTO outpost_sync_receipts(replica_id, fingerprint, generation, results, recorded_at)
                VALUES (\(replica), \(fingerprint), 0, \(results), \(at))
                """)
        }
        let conflicts = try store.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT service, replica_id, layer_id, global_id, object_id, upload_operation, overwritten_change, overwritten_by, feature,
                        recorded_at, fields FROM outpost_conflicts ORDER BY conflict_id
                    """
            ).map { row -> [PostgresValue] in
                [
                    .text(row[0]), .text(row[1]), (row[2] as Int64).postgresValue, .text(row[3]), (row[4] as Int64?).postgresValue, .text(row[5]),
                    .text(row[6]), (row[7] as String?).postgresValue, (row[8] as String?).postgresValue, (row[9] as Int64).postgresValue,
                    (row[10] as String?).postgresValue,
                ]
            }
        }
        for values in conflicts {
            try backend.pool.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO outpost_conflicts(service, replica_id, layer_id, global_id, object_id, upload_operation, overwritten_change,
                            overwritten_xid, overwritten_by, feature, recorded_at, fields)
                        VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9, $10, $11)
                        """, binds: values))
        }
    }

    /// The SELECT list of a layer's fields and geometry (as WKB), for moving its rows.
    static func featureSelect(_ old: StoredLayer, alias: String) -> [String] {
        old.definition.fields.map { "\(alias).\($0.name.quotedDatabaseIdentifier)" } + (old.isSpatial ? ["AsBinary(\(alias).shape)"] : [])
    }

    /// The COPY columns `featureSelect` fills.
    static func featureColumns(_ old: StoredLayer) -> [String] {
        old.definition.fields.map { PostgresQuery.quoted(identifier: $0.name) } + (old.isSpatial ? [StoredLayer.geometryColumn] : [])
    }

    /// The COPY cells of the columns `featureSelect` read, and the index of the row's next column.
    static func featureCells(_ row: Row, of old: StoredLayer, srid: Int) -> (cells: [String?], next: Int) {
        let fields = old.definition.fields
        var cells: [String?] = fields.indices.map { copyText(row[$0] as DatabaseValue) }
        guard old.isSpatial else { return (cells, fields.count) }
        cells.append((row[fields.count] as Data?).map { "SRID=\(srid);" + PostgresCopy.hex([UInt8]($0)) })
        return (cells, fields.count + 1)
    }

    static func copyText(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: nil
        case .int64(let integer): String(integer)
        case .double(let double): double.description
        case .string(let text): text
        case .blob(let data): "\\x" + PostgresCopy.hex([UInt8](data))
        }
    }
}

extension SpatiaLiteToPostgres {
    /// Puts the folder's attachment and upload files in the backend's object store under the
    /// same keys, before any row naming them moves (the folder keeps its copies).
    static func copyObjects(from store: SpatiaLiteBackend, to backend: PostgresBackend) throws -> Int {
        guard backend.blobs.isRemote else { return 0 }
        let folder = LocalDirectoryBlobStore(directory: store.directory)
        try FileManager.default.createDirectory(atPath: backend.temporaryDirectory, withIntermediateDirectories: true)
        var copied = 0
        for prefix in ["attachments/", "uploads/"] {
            for object in try folder.list(prefix: prefix) {
                let copy = (backend.temporaryDirectory as NSString).appendingPathComponent("migrate-\(UUID().uuidString)")
                try folder.download(object.key, to: copy)
                try backend.blobs.store.put(object.key, from: copy, ifAbsent: false)
                copied += 1
            }
        }
        return copied
    }
}
