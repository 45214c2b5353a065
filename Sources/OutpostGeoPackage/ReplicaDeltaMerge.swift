import Foundation
import GRDB
import OutpostSync
import OutpostWire

/// Merges a download delta (`docs/replica-format.md`, Deltas) into a replica file, as a
/// device does at the end of a sync and the map-area packager does to refresh a package:
/// the server's OBJECTIDs given to acknowledged adds, the server's changes written in the
/// delta's order (none logged as a local change; one to a feature with a pending local
/// change is deferred, `SyncRules.applyOnDevice`), the delta's generations taken, and the
/// acknowledged part of the change log removed. Either all of it happens or none.
public struct ReplicaDeltaMerge: Sendable, Equatable {
    /// A feature table of the replica file, as the merge writes it.
    public struct Table: Sendable, Equatable {
        public var layerId: Int
        /// The SQLite table holding its rows.
        public var tableName: String
        public var objectIdField: String
        public var globalIdField: String
        /// The attachment (media) table, when the file carries the layer's attachments.
        public var attachmentTable: String?

        public init(layerId: Int, tableName: String, objectIdField: String, globalIdField: String, attachmentTable: String?) {
            self.layerId = layerId
            self.tableName = tableName
            self.objectIdField = objectIdField
            self.globalIdField = globalIdField
            self.attachmentTable = attachmentTable
        }

        /// The table as the file describes it: the key fields its layer definition names,
        /// else its first OID or GlobalID field, else `OBJECTID` and `GlobalID`.
        public init(_ layer: ReplicaFileInfo.Layer) {
            let definition = layer.layerDefinition
            let fields = (definition["fields"]?.arrayValue ?? []).filter { $0["name"]?.stringValue != nil }
            func first(_ type: EsriFieldType) -> String? {
                fields.first { $0["type"]?.stringValue == type.rawValue }?["name"]?.stringValue
            }
            self.init(
                layerId: layer.layerId, tableName: layer.tableName,
                objectIdField: definition["objectIdField"]?.stringValue ?? first(.oid) ?? "OBJECTID",
                globalIdField: definition["globalIdField"]?.stringValue ?? first(.globalID) ?? "GlobalID",
                attachmentTable: layer.attachmentTable)
        }
    }

    /// What a merge did.
    public struct Outcome: Sendable, Equatable {
        /// Server changes written (features and attachments).
        public var changesApplied = 0
        /// Server changes skipped because the feature was edited here after the upload was
        /// taken: the local edit is later and goes up with the next sync (last in wins).
        public var changesDeferred = 0
        /// Local adds renumbered to the OBJECTIDs the server assigned.
        public var objectIdsAssigned = 0
        /// Uploaded edits the server refused: they stay in the change log.
        public var failedEdits: [DeltaEditResult] = []
        /// Per layer, the columns the delta's table has and the file's lacks: fields added to
        /// the service's layer after the file was made, not merged (docs/sync-semantics.md,
        /// "Schema changes").
        public var newFields: [Int: [String]] = [:]

        public init() {}
    }

    /// A delta this merge cannot take. SQLite's own failures (a full disk, a file past its
    /// `max_page_count`) are GRDB's `DatabaseError`.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The delta file is not a readable replica delta (`ReplicaChanges.Failure`).
        case unreadableDelta(String)
        /// The file is an upload delta or a replica, not the answer of a sync.
        case notADownloadDelta
        /// The delta was made for another replica.
        case otherReplica(delta: String, file: String)
        /// The delta lists a change to a feature without the feature's row.
        case missingRow(globalId: String)

        public var description: String {
            switch self {
            case .unreadableDelta(let reason): "the delta: \(reason)"
            case .notADownloadDelta: "the file is not a download delta"
            case .otherReplica(let delta, let file): "the delta belongs to replica \(delta), not \(file)"
            case .missingRow(let globalId): "the delta lists \(globalId) without its row"
            }
        }
    }

    /// The replica id of the file merged into.
    public var replicaId: String
    /// Its feature tables (a layer listed twice: the first wins).
    public var tables: [Table]

    public init(replicaId: String, tables: [Table]) {
        self.replicaId = replicaId
        self.tables = tables
    }

    /// The merge into the file `info` describes.
    public init(_ info: ReplicaFileInfo) {
        self.init(replicaId: info.replicaId, tables: info.layers.map(Table.init))
    }

    /// Merges the delta at `deltaPath` through `db` (the replica file's connection, outside a
    /// transaction: the delta is attached to it). `throughChangeId` and `uploadedLayers` name
    /// the change-log rows the sync uploaded: those the server accepted are removed (none for
    /// a delta made elsewhere, a packager's scheduled update). `now` is stamped as the file's
    /// `last_sync_date` (epoch milliseconds).
    public func merge(
        deltaAt deltaPath: String, into db: Database, throughChangeId: Int64 = 0, uploadedLayers: Set<Int> = [], now: Int64
    )
        throws -> Outcome
    {
        let delta: ReplicaChanges
        do { delta = try ReplicaChanges.read(deltaPath) } catch { throw Failure.unreadableDelta(error.description) }
        guard delta.delta?.kind == .download else { throw Failure.notADownloadDelta }
        guard GlobalID.normalize(delta.replicaId) == GlobalID.normalize(replicaId) else {
            throw Failure.otherReplica(delta: delta.replicaId, file: replicaId)
        }
        let tables = Dictionary(tables.map { ($0.layerId, $0) }, uniquingKeysWith: { first, _ in first })
        try db.execute(sql: "ATTACH DATABASE ? AS delta", arguments: [deltaPath])
        defer { try? db.execute(sql: "DETACH DATABASE delta") }
        var outcome = Outcome()
        try db.inTransaction(.immediate) {
            try db.execute(sql: "UPDATE outpost_sync_replica SET applying_server_changes = 1")
            outcome.failedEdits = delta.editResults.filter { !$0.result.success }
            outcome.objectIdsAssigned = try Self.assignObjectIds(of: delta.editResults, tables: tables, db: db)
            try Self.writeServerChanges(tables: tables, pendingAfter: throughChangeId, db: db, into: &outcome)
            try Self.takeGenerations(now: now, db: db)
            try Self.trimChangeLog(
                through: throughChangeId, layers: uploadedLayers,
                keeping: outcome.failedEdits.compactMap { $0.result.globalId.flatMap(GlobalID.normalize) }, db: db)
            return .commit
        }
        return outcome
    }

    /// 1. The server's OBJECTIDs for acknowledged adds.
    static func assignObjectIds(of results: [DeltaEditResult], tables: [Int: Table], db: Database) throws -> Int {
        var moved = 0
        for (layerId, results) in Dictionary(grouping: results, by: \.layerId) {
            guard let table = tables[layerId] else { continue }
            let assigned = results.filter { $0.item == .feature && $0.operation == .insert && $0.result.success }
                .compactMap { entry -> (String, Int64)? in
                    guard let id = entry.result.globalId.flatMap(GlobalID.normalize), let oid = entry.result.objectId else { return nil }
                    return (id, oid)
                }
            moved += try assignObjectIds(assigned, in: table, db: db)
        }
        return moved
    }

    /// 2. The server's changes, in the delta's order; a change to a GlobalID with a local
    /// change logged after `pendingAfter` (an edit made while the sync ran) is deferred.
    static func writeServerChanges(tables: [Int: Table], pendingAfter throughChangeId: Int64, db: Database, into outcome: inout Outcome) throws {
        let pending = Set(
            try String.fetchAll(
                db, sql: "SELECT DISTINCT upper(global_id) FROM outpost_sync_changes WHERE change_id > ?", arguments: [throughChangeId]))
        var deltaTable: [Int: (features: String, attachments: String?)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT layer_id, table_name, attachment_table FROM delta.outpost_sync_layers") {
            deltaTable[row[0]] = (row[1], row[2])
        }
        let changes = try Row.fetchAll(db, sql: "SELECT layer_id, item, global_id, operation FROM delta.outpost_sync_changes ORDER BY change_id")
        // The columns both sides have, per layer, read once: every change reuses them.
        var sharedColumns: [Int: [String]] = [:]
        for (layerId, source) in deltaTable {
            guard let table = tables[layerId] else { continue }
            // The schema as the pragma's argument: `delta.pragma_table_info` reads main's table of that name.
            let local = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?, 'main')", arguments: [table.tableName]))
            let remote = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?, 'delta')", arguments: [source.features])
            sharedColumns[layerId] = remote.filter { local.contains($0) }
            let added = remote.filter { !local.contains($0) }
            if !added.isEmpty { outcome.newFields[layerId] = added }
        }
        for change in changes {
            let layerId: Int = change[0]
            guard let table = tables[layerId], let source = deltaTable[layerId] else { continue }
            let globalId: String = change[2]
            let operation: String = change[3]
            let downloaded: DownloadChange = operation == "delete" ? .delete : operation == "insert" ? .add : .update
            if SyncRules.applyOnDevice(downloaded, hasPendingLocalChanges: pending.contains(globalId.uppercased())) == .deferToPendingEdit {
                outcome.changesDeferred += 1
                continue
            }
            if (change[1] as String) == "attachment" {
                guard let local = table.attachmentTable, let remote = source.attachments else { continue }
                if operation == "delete" {
                    try db.execute(sql: "DELETE FROM main.\(local.quotedDatabaseIdentifier) WHERE GLOBALID = ?", arguments: [globalId])
                } else {
                    try upsertAttachment(globalId, from: remote, into: local, db: db)
                }
            } else if operation == "delete" {
                try db.cachedStatement(
                    sql: "DELETE FROM main.\(table.tableName.quotedDatabaseIdentifier) WHERE \(table.globalIdField.quotedDatabaseIdentifier) = ?"
                ).execute(arguments: [globalId])
            } else {
                try upsertFeature(globalId, from: source.features, into: table, columns: sharedColumns[layerId] ?? [], db: db)
            }
            outcome.changesApplied += 1
        }
    }

    /// 3. The delta's generations, per layer and for the replica.
    static func takeGenerations(now: Int64, db: Database) throws {
        try db.execute(
            sql: """
                UPDATE outpost_sync_layers SET server_gen = (SELECT d.server_gen FROM delta.outpost_sync_layers d WHERE d.layer_id = outpost_sync_layers.layer_id)
                WHERE layer_id IN (SELECT layer_id FROM delta.outpost_sync_layers)
                """)
        try db.execute(
            sql: """
                UPDATE outpost_sync_replica SET replica_server_gen = (SELECT replica_server_gen FROM delta.outpost_sync_replica),
                    last_sync_date = ?, applying_server_changes = 0
                """, arguments: [now])
    }

    /// 4. The change-log rows of `layers` through `throughChangeId` the server acknowledged
    /// (all but the refused GlobalIDs, which go up again with the next sync).
    static func trimChangeLog(through throughChangeId: Int64, layers: Set<Int>, keeping refused: [String], db: Database) throws {
        try db.execute(
            sql:
                "DELETE FROM outpost_sync_changes WHERE change_id <= ? AND layer_id IN (SELECT value FROM json_each(?)) AND upper(global_id) NOT IN (SELECT value FROM json_each(?))",
            arguments: [
                throughChangeId, JSONValue.array(layers.sorted().map { .int(Int64($0)) }).jsonText,
                JSONValue.array(refused.map { .string($0) }).jsonText,
            ])
    }
}
