import Foundation
import GRDB
import OutpostGeoPackage
import OutpostWire

/// Bringing a geodatabase back in step with a server restored from a backup older than its
/// last sync (docs/operations.md, "After a restore"): the server lost what the file sent and
/// received since, so the file sends everything it holds again, from the generations the
/// server remembers. The sync rules make over-sending safe: an update of a feature the server
/// lacks inserts it, one it has overwrites it, and every value overwritten is logged.
extension Geodatabase {
    /// Logs every feature and attachment as changed here, so the next sync uploads all of
    /// them, and takes `generations` (by layer) as the ones the server gave. Local edits not yet
    /// sent stay as they are. Returns how many rows were logged.
    @discardableResult
    func prepareResend(generations: [Int: Int64]) throws -> Int {
        let tables = try featureTables()
        return try edit { db in
            var logged = 0
            for table in tables {
                try db.execute(
                    sql: """
                        INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation)
                        SELECT ?, 'feature', \(table.globalIdField.quotedDatabaseIdentifier), \(table.objectIdField.quotedDatabaseIdentifier), 'update'
                        FROM \(table.tableName.quotedDatabaseIdentifier) WHERE \(table.globalIdField.quotedDatabaseIdentifier) IS NOT NULL
                        """, arguments: [table.layerId])
                logged += db.changesCount
                if let attachments = table.attachmentTable {
                    try db.execute(
                        sql: """
                            INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation)
                            SELECT ?, 'attachment', GLOBALID, ATTACHMENTID, 'update' FROM \(attachments.quotedDatabaseIdentifier)
                            WHERE GLOBALID IS NOT NULL
                            """, arguments: [table.layerId])
                    logged += db.changesCount
                }
                let generation = generations[table.layerId] ?? 0
                try db.execute(sql: "UPDATE outpost_sync_layers SET server_gen = ? WHERE layer_id = ?", arguments: [generation, table.layerId])
            }
            try db.execute(sql: "UPDATE outpost_sync_replica SET replica_server_gen = ?", arguments: [generations.values.min() ?? 0])
            return logged
        }
    }
}

/// The network half: which generations the restored server remembers giving the replica
/// (`replicas/<id>`), or, when it does not know the replica at all (registered after the
/// backup), a new registration of the file's data from generation 0.
enum RestoredServerRecovery {
    /// Prepares the file to send everything again; the note says what was done.
    static func run(_ geodatabase: Geodatabase, connection: ServiceConnection) async throws -> String {
        let info = try geodatabase.info()
        var generations: [Int: Int64] = [:]
        do {
            let answer = try await connection.getJSON(connection.url("replicas/\(info.replicaId)"))
            if let layers = answer["layerServerGens"]?.arrayValue {
                for layer in layers {
                    if let id = layer["id"]?.int64Value, let gen = layer["serverGen"]?.int64Value { generations[Int(id)] = gen }
                }
            } else if let gen = answer["replicaServerGen"]?.int64Value {
                for layer in info.layers { generations[layer.layerId] = gen }
            } else {
                throw ClientError.invalidResponse("replicas/\(info.replicaId) named no generations")
            }
        } catch ClientError.server(let code, _, _) where code == 404 {
            for layer in info.layers { generations[layer.layerId] = 0 }
            _ = try await GeodatabaseSyncTask.registerExistingData(
                of: geodatabase, named: info.replicaName, from: generations, connection: connection)
        }
        let logged = try geodatabase.prepareResend(generations: generations)
        let from = generations.keys.sorted().map { "layer \($0) from \(generations[$0]!)" }.joined(separator: ", ")
        return "the server was restored from an older backup: sending all \(logged) features and attachments again, \(from)"
    }
}
