import Foundation
import GRDB
import OutpostGeoPackage
import OutpostSync
import OutpostWire

/// The local half of a sync: what to upload, and applying the server's download delta.
extension Geodatabase {
    /// The local changes to upload, netted per GlobalID, and the last change-log row they
    /// cover (the rows removed once the server has acknowledged them).
    func pendingUpload() throws -> (edits: [LayerEdits], throughChangeId: Int64) {
        let changes: ReplicaChanges
        do { changes = try ReplicaChanges.read(path) } catch { throw ClientError.geodatabase(error.description) }
        let edits = changes.layers.map(\.edits).filter { $0.count > 0 || $0.attachments != nil }
        return (edits, changes.lastChangeId)
    }

    /// What applying a download delta did.
    public struct AppliedDelta: Sendable, Equatable {
        /// Server changes written (features and attachments).
        public var changesApplied: Int
        /// Server changes skipped because the feature was edited here after the upload was
        /// taken: the local edit is later and goes up with the next sync (last in wins).
        public var changesDeferred: Int
        /// Local adds renumbered to the OBJECTIDs the server assigned.
        public var objectIdsAssigned: Int
        /// Uploaded edits the server refused: they stay in the change log.
        public var failedEdits: [DeltaEditResult]
    }

    /// Imports a download delta of this replica made elsewhere — a packager's scheduled update
    /// (Runtime's `importDelta`): the server's changes written, the generations taken, the
    /// local change log left as it is. Either all of it happens or none.
    @discardableResult
    public func importDelta(at deltaPath: String) throws -> AppliedDelta {
        try applyDelta(at: deltaPath, throughChangeId: 0, uploadedLayers: [])
    }

    /// Applies a download delta in one transaction: assigns the server's OBJECTIDs to
    /// acknowledged adds, writes the server's changes (none is logged as a local change),
    /// takes the delta's generations, and removes the change-log rows of `uploadedLayers`
    /// through `throughChangeId` that the server accepted. Either all of it happens or none.
    func applyDelta(at deltaPath: String, throughChangeId: Int64, uploadedLayers: Set<Int>) throws -> AppliedDelta {
        let delta: ReplicaChanges
        do { delta = try ReplicaChanges.read(deltaPath) } catch { throw ClientError.invalidResponse("the sync's delta: \(error.description)") }
        guard delta.delta?.kind == .download else { throw ClientError.invalidResponse("the sync's answer is not a download delta") }
        let info = try self.info()
        guard GlobalID.normalize(delta.replicaId) == GlobalID.normalize(info.replicaId) else {
            throw ClientError.invalidResponse("the delta belongs to replica \(delta.replicaId), not \(info.replicaId)")
        }
        let tables = Dictionary(try featureTables().map { ($0.layerId, $0) }, uniquingKeysWith: { a, _ in a })
        return try queue.inDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS delta", arguments: [deltaPath])
            defer { try? db.execute(sql: "DETACH DATABASE delta") }
            var applied = AppliedDelta(changesApplied: 0, changesDeferred: 0, objectIdsAssigned: 0, failedEdits: [])
            try db.inTransaction(.immediate) {
                try db.execute(sql: "UPDATE outpost_sync_replica SET applying_server_changes = 1")
                applied.failedEdits = delta.editResults.filter { !$0.result.success }
                // 1. The server's OBJECTIDs for acknowledged adds.
                for (layerId, results) in Dictionary(grouping: delta.editResults, by: \.layerId) {
                    guard let table = tables[layerId] else { continue }
                    let assigned = results.filter { $0.item == .feature && $0.operation == .insert && $0.result.success }
                        .compactMap { entry -> (String, Int64)? in
                            guard let id = entry.result.globalId.flatMap(GlobalID.normalize), let oid = entry.result.objectId else { return nil }
                            return (id, oid)
                        }
                    applied.objectIdsAssigned += try Self.assignObjectIds(assigned, in: table, db: db)
                }
                // 2. The server's changes, in the delta's order.
                let pending = Set(
                    try String.fetchAll(
                        db, sql: "SELECT DISTINCT upper(global_id) FROM outpost_sync_changes WHERE change_id > ?",
                        arguments: [throughChangeId]))
                let deltaTables = try Row.fetchAll(db, sql: "SELECT layer_id, table_name, attachment_table FROM delta.outpost_sync_layers")
                var deltaTable: [Int: (String, String?)] = [:]
                for row in deltaTables { deltaTable[row[0]] = (row[1], row[2]) }
                let changes = try Row.fetchAll(
                    db, sql: "SELECT layer_id, item, global_id, operation FROM delta.outpost_sync_changes ORDER BY change_id")
                // The columns both sides have, per layer, read once: every change reuses them.
                var sharedColumns: [Int: [String]] = [:]
                for (layerId, source) in deltaTable {
                    guard let table = tables[layerId] else { continue }
                    let local = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table.tableName]))
                    sharedColumns[layerId] = try String.fetchAll(db, sql: "SELECT name FROM delta.pragma_table_info(?)", arguments: [source.0])
                        .filter { local.contains($0) }
                }
                for change in changes {
                    let layerId: Int = change[0]
                    guard let table = tables[layerId], let source = deltaTable[layerId] else { continue }
                    let globalId: String = change[2]
                    let operation: String = change[3]
                    let downloaded: DownloadChange = operation == "delete" ? .delete : operation == "insert" ? .add : .update
                    if SyncRules.applyOnDevice(downloaded, hasPendingLocalChanges: pending.contains(globalId.uppercased())) == .deferToPendingEdit {
                        applied.changesDeferred += 1
                        continue
                    }
                    let isAttachment = (change[1] as String) == "attachment"
                    if isAttachment {
                        guard let local = table.attachmentTable, let remote = source.1 else { continue }
                        if operation == "delete" {
                            try db.execute(sql: "DELETE FROM main.\(local.quotedDatabaseIdentifier) WHERE GLOBALID = ?", arguments: [globalId])
                        } else {
                            try Self.upsertAttachment(globalId, from: remote, into: local, db: db)
                        }
                    } else if operation == "delete" {
                        try db.cachedStatement(
                            sql:
                                "DELETE FROM main.\(table.tableName.quotedDatabaseIdentifier) WHERE \(table.globalIdField.quotedDatabaseIdentifier) = ?"
                        ).execute(arguments: [globalId])
                    } else {
                        try Self.upsertFeature(globalId, from: source.0, into: table, columns: sharedColumns[layerId] ?? [], db: db)
                    }
                    applied.changesApplied += 1
                }
                // 3. Generations, and the acknowledged part of the change log.
                try db.execute(
                    sql: """
                        UPDATE outpost_sync_layers SET server_gen = (SELECT d.server_gen FROM delta.outpost_sync_layers d WHERE d.layer_id = outpost_sync_layers.layer_id)
                        WHERE layer_id IN (SELECT layer_id FROM delta.outpost_sync_layers)
                        """)
                try db.execute(
                    sql: """
                        UPDATE outpost_sync_replica SET replica_server_gen = (SELECT replica_server_gen FROM delta.outpost_sync_replica),
                            last_sync_date = ?, applying_server_changes = 0
                        """, arguments: [clock.milliseconds()])
                let refused = applied.failedEdits.compactMap { $0.result.globalId.flatMap(GlobalID.normalize) }
                try db.execute(
                    sql:
                        "DELETE FROM outpost_sync_changes WHERE change_id <= ? AND layer_id IN (SELECT value FROM json_each(?)) AND upper(global_id) NOT IN (SELECT value FROM json_each(?))",
                    arguments: [
                        throughChangeId, JSONValue.array(uploadedLayers.sorted().map { .int(Int64($0)) }).jsonText,
                        JSONValue.array(refused.map { .string($0) }).jsonText,
                    ])
                return .commit
            }
            return applied
        }
    }

    /// Gives acknowledged local adds the server's OBJECTIDs; a local row in the way (an add
    /// made while the sync ran) moves to a fresh id. Returns how many changed.
    static func assignObjectIds(_ assigned: [(globalId: String, objectId: Int64)], in table: GeodatabaseFeatureTable, db: Database) throws -> Int {
        let t = table.tableName.quotedDatabaseIdentifier
        let oid = table.objectIdField.quotedDatabaseIdentifier
        let gid = table.globalIdField.quotedDatabaseIdentifier
        var moved = 0
        for (globalId, objectId) in assigned {
            guard let current = try Int64.fetchOne(db, sql: "SELECT \(oid) FROM \(t) WHERE \(gid) = ?", arguments: [globalId]),
                current != objectId
            else { continue }
            try makeRoom(for: objectId, in: table, db: db)
            try db.execute(sql: "UPDATE \(t) SET \(oid) = ? WHERE \(gid) = ?", arguments: [objectId, globalId])
            moved += 1
        }
        return moved
    }

    /// Moves the row holding `objectId`, if any, to a fresh id above every id in use.
    static func makeRoom(for objectId: Int64, in table: GeodatabaseFeatureTable, db: Database) throws {
        let t = table.tableName.quotedDatabaseIdentifier
        let oid = table.objectIdField.quotedDatabaseIdentifier
        guard try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM \(t) WHERE \(oid) = ?", arguments: [objectId]) == true else { return }
        let fresh =
            max(
                objectId, try Int64.fetchOne(db, sql: "SELECT max(\(oid)) FROM \(t)") ?? 0,
                try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table.tableName]) ?? 0) + 1
        try db.execute(sql: "UPDATE \(t) SET \(oid) = ? WHERE \(oid) = ?", arguments: [fresh, objectId])
    }

    /// Writes the delta's row of `globalId` over the local one (or adds it), OBJECTID included;
    /// `columns` are those both tables have. Statements are cached: a delta of thousands of
    /// changes prepares each (and the triggers compiled into it) once.
    static func upsertFeature(
        _ globalId: String, from deltaTable: String, into table: GeodatabaseFeatureTable, columns: [String], db: Database
    )
        throws
    {
        let t = table.tableName.quotedDatabaseIdentifier
        let d = "delta.\(deltaTable.quotedDatabaseIdentifier)"
        let oid = table.objectIdField.quotedDatabaseIdentifier
        let gid = table.globalIdField.quotedDatabaseIdentifier
        guard let serverObjectId = try Int64.fetchOne(db.cachedStatement(sql: "SELECT \(oid) FROM \(d) WHERE \(gid) = ?"), arguments: [globalId])
        else {
            throw ClientError.invalidResponse("the delta lists \(globalId) without its row")
        }
        let localObjectId = try Int64.fetchOne(db.cachedStatement(sql: "SELECT \(oid) FROM \(t) WHERE \(gid) = ?"), arguments: [globalId])
        if localObjectId != serverObjectId { try makeRoom(for: serverObjectId, in: table, db: db) }
        if localObjectId != nil {
            // The GlobalID never changes (a trigger guards it): every other column is the server's.
            let updated = columns.filter { $0 != table.globalIdField }
            try db.cachedStatement(
                sql: """
                    UPDATE \(t) SET (\(updated.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) =
                        (SELECT \(updated.map { "s.\($0.quotedDatabaseIdentifier)" }.joined(separator: ", ")) FROM \(d) s WHERE s.\(gid) = ?)
                    WHERE \(gid) = ?
                    """
            ).execute(arguments: [globalId, globalId])
        } else {
            let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
            try db.cachedStatement(sql: "INSERT INTO \(t) (\(list)) SELECT \(list) FROM \(d) WHERE \(gid) = ?").execute(arguments: [globalId])
        }
    }

    /// Writes the delta's attachment `globalId` over the local one (or adds it).
    static func upsertAttachment(_ globalId: String, from deltaTable: String, into table: String, db: Database) throws {
        let columns = ["data", "content_type", "ATTACHMENTID", "REL_GLOBALID", "ATT_NAME", "DATA_SIZE", "KEYWORDS"]
        let t = table.quotedDatabaseIdentifier
        let d = "delta.\(deltaTable.quotedDatabaseIdentifier)"
        if try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM \(t) WHERE GLOBALID = ?", arguments: [globalId]) == true {
            try db.execute(
                sql:
                    "UPDATE \(t) SET (\(columns.joined(separator: ", "))) = (SELECT \(columns.map { "s.\($0)" }.joined(separator: ", ")) FROM \(d) s WHERE s.GLOBALID = ?) WHERE GLOBALID = ?",
                arguments: [globalId, globalId])
        } else {
            try db.execute(
                sql:
                    "INSERT INTO \(t) (GLOBALID, \(columns.joined(separator: ", "))) SELECT GLOBALID, \(columns.joined(separator: ", ")) FROM \(d) WHERE GLOBALID = ?",
                arguments: [globalId])
        }
    }

    /// Records a new replica id and name (after registering a copied file).
    func setReplica(id: String, name: String) throws {
        try queue.inDatabase { db in
            try db.execute(sql: "UPDATE outpost_sync_replica SET replica_id = ?, replica_name = ?", arguments: [id, name])
        }
    }
}
