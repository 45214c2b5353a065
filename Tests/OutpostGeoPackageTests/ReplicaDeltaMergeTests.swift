import Foundation
import GRDB
import OutpostGeoPackage
import OutpostGeometry
import OutpostSync
import OutpostWire
import Testing

/// A download delta merged into a replica file on its own: no server, no client library.
@Suite struct ReplicaDeltaMergeTests {
    static let replicaId = "{11111111-2222-4333-8444-555555555555}"
    static let trees = ReplicaFileWriterTests.points

    static func globalId(_ n: Int) -> String { "{00000000-0000-4000-8000-\(String(format: "%012d", n))}" }

    /// A replica of the layer at generation 17, or (`delta`) a download delta of it at
    /// generation 20: `rows` are (OBJECTID, GlobalID number, species), logged as `operation`.
    static func write(
        replicaId: String = replicaId, delta: Bool, rows: [(Int64, Int, String)], operation: DeltaOperation? = nil,
        editResults: [DeltaEditResult] = []
    ) throws -> String {
        let path = NSTemporaryDirectory() + "merge-\(UUID().uuidString).gpkg"
        var replica = ReplicaDefinition(
            id: replicaId, name: "r", serviceName: "Demo", syncModel: .perLayer, attachmentsSyncDirection: .none,
            layers: [ReplicaLayer(layerId: 2)])
        replica.setGeneration(delta ? 20 : 17)
        let writer = try ReplicaFileWriter(
            path: path, replica: replica, serviceURL: "http://h/arcgis/rest/services/Demo/FeatureServer", serviceJSON: ["name": "Demo"],
            spatialReferences: [], delta: delta ? ReplicaDeltaHeader(kind: .download, generation: 20) : nil)
        let layer = try writer.beginLayer(
            ReplicaFileLayer(definition: trees, layerJSON: ["id": 2], replicaLayer: replica.layers[0], withAttachments: false))
        try layer.insertAll(logging: operation) { insert in
            for (objectId, n, species) in rows {
                try insert(
                    [objectId.databaseValue, globalId(n).databaseValue, species.databaseValue, Int64(1_700_000_000_000).databaseValue],
                    .point(Point(x: Double(n), y: 1)))
            }
        }
        try layer.finish()
        if delta { try writer.recordEditResults(editResults) }
        try writer.finish()
        return path
    }

    static func species(_ path: String) throws -> [Int64: String] {
        let queue = try ReplicaFile.open(path, readonly: true)
        defer { try? queue.close() }
        return try queue.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT OBJECTID, species FROM Trees").map { ($0[0], $0[1]) })
        }
    }

    /// The server's updates are written, unlogged (one of a feature the file does not hold
    /// adds it); its update of a feature edited here since (a pending local change) is
    /// deferred, the local edit kept to go up next.
    @Test func writesTheServersChangesAndDefersOnesToFeaturesWithPendingLocalChanges() throws {
        let path = try Self.write(delta: false, rows: [(1, 1, "oak"), (2, 2, "elm"), (3, 3, "ash")])
        let delta = try Self.write(
            delta: true, rows: [(1, 1, "oak from server"), (2, 2, "elm from server"), (4, 4, "new from server")], operation: .update)
        defer { for file in [path, delta] { try? FileManager.default.removeItem(atPath: file) } }
        let queue = try ReplicaFile.open(path)
        try queue.write { db in try db.execute(sql: "UPDATE Trees SET species = 'elm edited here' WHERE OBJECTID = 2") }
        try queue.close()

        let outcome = try ReplicaDeltaMerge.merge(deltaAt: delta, intoFileAt: path, now: 1_234)
        #expect(outcome.changesApplied == 2 && outcome.changesDeferred == 1 && outcome.objectIdsAssigned == 0)
        #expect(try Self.species(path) == [1: "oak from server", 2: "elm edited here", 3: "ash", 4: "new from server"])
        let info = try ReplicaFile.info(path)
        #expect(info.replicaServerGen == 20 && info.layers[0].serverGen == 20)
        #expect(info.pendingChanges == 1, "only the local edit is logged")
        let reopened = try ReplicaFile.open(path, readonly: true)
        defer { try? reopened.close() }
        try reopened.read { db throws in
            #expect(try Int64.fetchOne(db, sql: "SELECT last_sync_date FROM outpost_sync_replica") == 1_234)
            #expect(try Int.fetchOne(db, sql: "SELECT applying_server_changes FROM outpost_sync_replica") == 0)
            #expect(try String.fetchOne(db, sql: "SELECT upper(global_id) FROM outpost_sync_changes") == Self.globalId(2))
        }
    }

    /// An acknowledged local add takes the server's OBJECTID, and the uploaded change-log rows
    /// go: the merge through a connection of the caller's, as a device syncs.
    @Test func assignsTheServersObjectIdsAndTrimsTheAcknowledgedChangeLog() throws {
        let path = try Self.write(delta: false, rows: [(1, 1, "oak")])
        let acknowledged = DeltaEditResult(
            layerId: 2, item: .feature, operation: .insert, result: EditResult(objectId: 9, globalId: Self.globalId(5), error: nil))
        let delta = try Self.write(delta: true, rows: [], editResults: [acknowledged])
        defer { for file in [path, delta] { try? FileManager.default.removeItem(atPath: file) } }
        let queue = try ReplicaFile.open(path)
        defer { try? queue.close() }
        let through = try queue.write { db in
            try db.execute(
                sql: "INSERT INTO Trees(GlobalID, species) VALUES (?, 'added here')", arguments: [Self.globalId(5)])
            return try Int64.fetchOne(db, sql: "SELECT max(change_id) FROM outpost_sync_changes") ?? 0
        }
        let merge = ReplicaDeltaMerge(try ReplicaFile.info(path))
        let outcome = try queue.inDatabase { db in
            try merge.merge(deltaAt: delta, into: db, throughChangeId: through, uploadedLayers: [2], now: 1)
        }
        #expect(outcome.objectIdsAssigned == 1 && outcome.changesApplied == 0 && outcome.failedEdits.isEmpty)
        #expect(try Self.species(path) == [1: "oak", 9: "added here"])
        #expect(try ReplicaFile.info(path).pendingChanges == 0)
    }

    /// A delta of another replica, or a file that is no download delta, changes nothing; nor
    /// does a merge that would grow the file past its bound.
    @Test func refusesDeltasItCannotTakeAndChangesNothing() throws {
        let path = try Self.write(delta: false, rows: [(1, 1, "oak")])
        let other = try Self.write(
            replicaId: "{99999999-2222-4333-8444-555555555555}", delta: true, rows: [(1, 1, "other")], operation: .update)
        let large = try Self.write(
            delta: true, rows: (1...2000).map { (Int64($0), $0, String(repeating: "x", count: 64)) }, operation: .update)
        defer { for file in [path, other, large] { try? FileManager.default.removeItem(atPath: file) } }
        #expect(throws: ReplicaDeltaMerge.Failure.otherReplica(delta: "{99999999-2222-4333-8444-555555555555}", file: Self.replicaId)) {
            try ReplicaDeltaMerge.merge(deltaAt: other, intoFileAt: path, now: 1)
        }
        #expect(throws: ReplicaDeltaMerge.Failure.notADownloadDelta) { try ReplicaDeltaMerge.merge(deltaAt: path, intoFileAt: path, now: 1) }
        let size = ((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber)?.intValue ?? 0
        #expect(throws: DatabaseError.self) { try ReplicaDeltaMerge.merge(deltaAt: large, intoFileAt: path, maximumBytes: size, now: 1) }
        #expect(try Self.species(path) == [1: "oak"])
        #expect(try ReplicaFile.info(path).replicaServerGen == 17)
    }
}
