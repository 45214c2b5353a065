import Foundation
import GRDB
import OutpostGeometry
import OutpostSQLite
import OutpostStorage
import OutpostSync
import OutpostWire

/// Replicas' data: snapshots, the sync upload and the change feed (`SyncStore`).
public struct SpatiaLiteSync: SyncStore, StoreRepository {
    public let database: StoreDatabase
}

extension SpatiaLiteSync {
    /// The SELECT columns of a feature: the fields, then the geometry in `spatialReference`.
    static func featureColumns(_ layer: StoredLayer, spatialReference: SpatialReference) -> [String] {
        var columns = layer.definition.fields.map { "t.\($0.name.quotedDatabaseIdentifier)" }
        if layer.isSpatial {
            let target = spatialReference.epsg
            columns.append(target == layer.srid ? "t.shape" : "ST_Transform(t.shape, \(target), NULL, 'EPSG:\(layer.srid)', 'EPSG:\(target)')")
        }
        return columns
    }
}

extension SpatiaLiteSync {
    /// After a sync: the generations handed out become the replica's, with the sync's date.
    /// With `closeReplica` the replica is unregistered instead.
    public func recordSync(_ plan: SyncPlan, generations: [Int: Int64], close: Bool) throws {
        let replicaId = plan.replica.id
        let now = clock.milliseconds()
        try pool.write { db in
            if close {
                try db.execute(sql: "DELETE FROM outpost_replica_layers WHERE replica_id = ?", arguments: [replicaId])
                try db.execute(sql: "DELETE FROM outpost_replicas WHERE replica_id = ?", arguments: [replicaId])
                try db.execute(sql: "DELETE FROM outpost_versions WHERE replica_id = ?", arguments: [replicaId])
                try db.execute(sql: "DELETE FROM outpost_sync_receipts WHERE replica_id = ?", arguments: [replicaId])
                return
            }
            for (layerId, generation) in generations {
                try db.execute(
                    sql: "UPDATE outpost_replica_layers SET server_gen = ? WHERE replica_id = ? AND layer_id = ?",
                    arguments: [generation, replicaId, layerId])
            }
            try db.execute(
                sql: """
                    UPDATE outpost_replicas SET last_sync_date = ?,
                        replica_server_gen = (SELECT coalesce(min(server_gen), replica_server_gen) FROM outpost_replica_layers WHERE replica_id = ?)
                    WHERE replica_id = ?
                    """, arguments: [now, replicaId, replicaId])
        }
    }
}

/// The server changes of one layer since a generation, as a replica must see them (§5.6):
/// net per GlobalID, each decided by `SyncRules.download` against the replica's filter.
/// Read adds, then updates (`forEachRow`), then `deletes`: rows that left the filter are
/// collected on the way, and a GlobalID met as a live row is never also deleted. The JSON
/// answer and the GeoPackage delta both read changes through it.
struct LayerChangeReader {
    typealias Deleted = DeletedRecord
    let selection: ReplicaLayerSelection
    let since: Int64
    let replica: ReplicaDefinition
    private var liveGlobalIds = Set<String>()
    private var leftFilter: [Deleted] = []

    init(selection: ReplicaLayerSelection, since: Int64, replica: ReplicaDefinition) {
        self.selection = selection
        self.since = since
        self.replica = replica
    }

    /// Calls `body` with the rows to send as `pass` (`.add`: created since the generation;
    /// `.update`: older), values aligned with the fields and the geometry in the replica's
    /// spatial reference.
    mutating func forEachRow(_ pass: DownloadChange, db: Database, _ body: ([DatabaseValue], OGCGeometry?) throws -> Void) throws {
        let definition = selection.layer.definition
        // Where the server writes fields (editor tracking), the replica's own changes come back.
        // (Rows a versioned reconcile merged are written by "merge:<replica>": not its own.)
        let echoes = definition.editFieldsInfo != nil
        let prefilter = ChangeFeedPrefilter.changedRows(pass, alias: "t", since: since, replicaId: replica.id, skipsOwnWrites: !echoes)
        let globalIdIndex = definition.fields.firstIndex { $0.name == definition.globalIdField }
        let (since, replicaId) = (self.since, replica.id)
        var live = liveGlobalIds
        var left = leftFilter
        defer {
            liveGlobalIds = live
            leftFilter = left
        }
        try Self.forEachChangedRow(
            selection, spatialReference: replica.spatialReference,
            where: prefilter.condition, arguments: prefilter.arguments, db: db
        ) { values, geometry, record, matches, createdBy in
            let globalId = globalIdIndex.flatMap { String.fromDatabaseValue(values[$0]) }
            if let globalId { live.insert(globalId) }
            switch SyncRules.download(
                record, matchesFilter: matches, since: since, replicaId: replicaId, echoesOwnWrites: echoes,
                createdByReplica: createdBy == replicaId)
            {
            case pass:
                try body(values, geometry)
            case .delete:
                if let globalId { left.append(DeletedRecord(globalId: globalId, objectId: record.objectId)) }
            default:
                // `.none`: the pre-filter kept more than the rules send. (A decision of the
                // other pass never gets here: `ChangeFeedPrefilterTests`.)
                break
            }
        }
    }

    /// The deletes: rows that left the filter, then tombstones since the generation.
    func deletes(db: Database) throws -> [Deleted] {
        // A GlobalID deleted and then added again is live: the row decided it.
        leftFilter + (try tombstones(kind: "feature", db: db).filter { !liveGlobalIds.contains($0.globalId) })
    }

    /// Attachments others deleted since the generation that the replica holds.
    func deletedAttachments(db: Database) throws -> [Deleted] {
        try tombstones(kind: "attachment", db: db)
    }

    /// The tombstones of `kind` since the generation that reach the replica as deletes.
    private func tombstones(kind: String, db: Database) throws -> [Deleted] {
        let layer = selection.layer
        var deleted: [Deleted] = []
        // Who created each one: the replica whose sync allocated its creation generation.
        let prefilter = ChangeFeedPrefilter.tombstones(alias: "t", since: since)
        let tombstones = try Row.fetchCursor(
            db,
            sql: """
                SELECT t.global_id, t.object_id, t.created_generation, t.generation, t.replica_id, g.replica_id
                FROM outpost_tombstones t LEFT JOIN outpost_generations g ON g.generation = t.created_generation
                WHERE t.service = ? AND t.layer_id = ? AND t.kind = ? AND \(prefilter.condition)
                ORDER BY t.generation, t.global_id
                """,
            arguments: StatementArguments(
                [layer.serviceName.databaseValue, layer.definition.id.databaseValue, kind.databaseValue]
                    + prefilter.arguments))
        while let row = try tombstones.next() {
            let record = ServerRecord.tombstone(objectId: row[1], createdGen: row[2], deletedGen: row[3], deletedBy: row[4])
            let createdByReplica = (row[5] as String?) == replica.id
            let change =
                kind == "attachment"
                ? SyncRules.downloadAttachment(record, parentInFilter: false, since: since, replicaId: replica.id, createdByReplica: createdByReplica)
                : SyncRules.download(record, matchesFilter: false, since: since, replicaId: replica.id, createdByReplica: createdByReplica)
            if change == .delete { deleted.append(DeletedRecord(globalId: row[0], objectId: row[1])) }
        }
        return deleted
    }

    /// Calls `body` with the attachments to send as `pass`, each decided by
    /// `SyncRules.downloadAttachment` (the pre-filter also keeps to features in the filter).
    func forEachAttachment(
        _ pass: DownloadChange, directory: String, db: Database,
        _ body: (SpatiaLiteSync.ExportedAttachment) throws -> Void
    ) throws {
        let layer = selection.layer
        let definition = layer.definition
        let gid = definition.globalIdField.quotedDatabaseIdentifier
        let prefilter = ChangeFeedPrefilter.changedRows(pass, alias: "a", since: since, replicaId: replica.id, skipsOwnWrites: true)
        let columns = SpatiaLiteSync.ExportedAttachment.columns(objectIdField: definition.objectIdField, parent: "t")
        let facts = "a.outpost_created_gen, a.outpost_gen, a.outpost_replica, \(ChangeFeedPrefilter.creatorColumn(alias: "a"))"
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT \(columns), \(facts)
                FROM \(layer.attachmentTable.quotedDatabaseIdentifier) a
                JOIN \(layer.tableName.quotedDatabaseIdentifier) t ON t.\(gid) = a.REL_GLOBALID
                WHERE (\(selection.condition)) AND \(prefilter.condition)
                ORDER BY a.ATTACHMENTID
                """, arguments: StatementArguments(selection.arguments + prefilter.arguments))
        while let row = try rows.next() {
            let attachment = SpatiaLiteSync.ExportedAttachment(row: row, directory: directory)
            let facts = row.count - 4
            let record = ServerRecord.row(objectId: attachment.id, createdGen: row[facts], changedGen: row[facts + 1], lastWriter: row[facts + 2])
            // The join above keeps to features in the filter.
            let change = SyncRules.downloadAttachment(
                record, parentInFilter: true, since: since, replicaId: replica.id,
                createdByReplica: (row[facts + 3] as String?) == replica.id)
            if change == pass { try body(attachment) }
        }
    }

    /// Calls `body` with each row of the layer table matching `where` (over `t`): values
    /// aligned with the fields, geometry in `spatialReference`, the row's server record and
    /// whether the replica's filter selects it.
    private static func forEachChangedRow(
        _ selection: ReplicaLayerSelection, spatialReference: SpatialReference, where condition: String,
        arguments: [DatabaseValue], db: Database,
        _ body: ([DatabaseValue], OGCGeometry?, ServerRecord, Bool, String?) throws -> Void
    ) throws {
        let layer = selection.layer
        let definition = layer.definition
        var columns = SpatiaLiteSync.featureColumns(layer, spatialReference: spatialReference)
        // Ordered by generation, the change index's order: by OBJECTID would make SQLite walk
        // the whole table instead of the changes.
        let oid = "t.\(definition.objectIdField.quotedDatabaseIdentifier)"
        columns += [
            "t.outpost_created_gen", "t.outpost_gen", "t.outpost_replica", "CASE WHEN \(selection.condition) THEN 1 ELSE 0 END",
            ChangeFeedPrefilter.creatorColumn(alias: "t"),
        ]
        let statement = try db.makeStatement(
            sql: """
                SELECT \(columns.joined(separator: ", ")) FROM \(layer.tableName.quotedDatabaseIdentifier) t
                WHERE \(condition) ORDER BY t.outpost_gen, \(oid)
                """)
        let oidIndex = definition.fields.firstIndex { $0.name == definition.objectIdField } ?? 0
        try SpatiaLiteSync.forEachFeatureRow(layer, statement: statement, arguments: StatementArguments(selection.arguments + arguments), db: db) {
            values, geometry, reader, extra in
            let record = ServerRecord.row(
                objectId: Int64.fromDatabaseValue(values[oidIndex]) ?? 0,
                createdGen: Int64.fromDatabaseValue(reader.value(extra)) ?? 0,
                changedGen: Int64.fromDatabaseValue(reader.value(extra + 1)) ?? 0,
                lastWriter: String.fromDatabaseValue(reader.value(extra + 2)))
            try body(
                values, geometry, record, Int64.fromDatabaseValue(reader.value(extra + 3)) == 1,
                String.fromDatabaseValue(reader.value(extra + 4)))
        }
    }
}
