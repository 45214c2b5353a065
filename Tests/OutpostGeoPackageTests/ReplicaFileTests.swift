import Foundation
import GRDB
import OutpostGeoPackage
import OutpostGeometry
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@Suite struct GeoPackageDateTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"), (1_700_000_000_123, "2023-11-14T22:13:20.123Z"),
        (-86_400_001, "1969-12-30T23:59:59.999Z"), (951_782_400_000, "2000-02-29T00:00:00.000Z"),
    ])
    func formatsAndParsesUTC(ms: Int64, text: String) {
        #expect(GeoPackageDate.text(fromEpochMilliseconds: ms) == text)
        #expect(GeoPackageDate.epochMilliseconds(from: text) == ms)
    }

    @Test func parsesDatesWithoutTime() {
        #expect(GeoPackageDate.epochMilliseconds(from: "2000-02-29") == 951_782_400_000)
        #expect(GeoPackageDate.epochMilliseconds(from: "2000-13-01") == nil)
        #expect(GeoPackageDate.epochMilliseconds(from: "yesterday") == nil)
    }
}

/// Runs GDAL's validate_gpkg.py (python3-gdal, installed by scripts/setup.sh) on a file.
/// Outside CI a machine without GDAL skips the check; in CI its absence is a failure.
func expectValidGeoPackage(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let validator = "/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py"
    guard FileManager.default.fileExists(atPath: validator) else {
        if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record("validate_gpkg.py is missing", sourceLocation: sourceLocation) }
        return
    }
    let validation = try await ExternalTool.run("/usr/bin/python3", [validator, path], mergingErrors: true)
    #expect(validation.exitCode == 0, "validate_gpkg.py: \(validation.text)", sourceLocation: sourceLocation)
}

@Suite struct ReplicaFileWriterTests {
    static let points = LayerDefinition(
        id: 2, name: "Trees", kind: .featureLayer, geometryType: .point, spatialReference: .wgs84,
        fields: LayerDefinition.withSystemFields([
            FieldDefinition(name: "species", type: .string, length: 64), FieldDefinition(name: "planted", type: .date),
        ]), hasAttachments: true)

    func writeReplica(rows: Int) throws -> String {
        let path = NSTemporaryDirectory() + "replica-\(UUID().uuidString).gpkg"
        var replica = ReplicaDefinition(
            id: "{11111111-2222-4333-8444-555555555555}", name: "r", serviceName: "Demo", syncModel: .perLayer,
            attachmentsSyncDirection: .bidirectional, returnAttachments: true,
            layers: [ReplicaLayer(layerId: 2, whereClause: "species <> 'x'")])
        replica.setGeneration(17)
        let writer = try ReplicaFileWriter(
            path: path, replica: replica, serviceURL: "http://h/arcgis/rest/services/Demo/FeatureServer",
            serviceJSON: ["name": "Demo"], spatialReferences: [])
        let layer = try writer.beginLayer(
            ReplicaFileLayer(
                definition: Self.points, layerJSON: ["id": 2], replicaLayer: replica.layers[0],
                withAttachments: true))
        try layer.insertAll { insert in
            for i in 1...rows {
                try insert(
                    [
                        Int64(i).databaseValue, "{00000000-0000-4000-8000-\(String(format: "%012d", i))}".databaseValue,
                        "tree \(i)".databaseValue, Int64(1_700_000_000_000).databaseValue,
                    ],
                    .point(Point(x: Double(i % 100), y: Double(i / 100))))
            }
        }
        try layer.insertAttachment(
            attachmentId: 5, globalId: "{AAAAAAAA-0000-4000-8000-000000000001}",
            parentGlobalId: "{00000000-0000-4000-8000-000000000001}", name: "a.txt", contentType: "text/plain",
            keywords: "", data: Data("hello".utf8))
        try layer.finish()
        try writer.finish()
        return path
    }

    @Test func recordsTheReplicaAndItsLayers() async throws {
        let path = try writeReplica(rows: 3)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await expectValidGeoPackage(path)
        let info = try ReplicaFile.info(path)
        #expect(info.replicaId == "{11111111-2222-4333-8444-555555555555}")
        #expect(info.syncModel == .perLayer && info.attachmentsSyncDirection == .bidirectional)
        #expect(info.layers.count == 1)
        #expect(info.layers[0].tableName == "Trees" && info.layers[0].attachmentTable == "Trees__ATTACH")
        #expect(info.layers[0].serverGen == 17 && info.layers[0].whereClause == "species <> 'x'")
        #expect(info.pendingChanges == 0)
        let queue = try ReplicaFile.open(path)
        try await queue.read { db throws in
            #expect(try Int32.fetchOne(db, sql: "PRAGMA application_id") == 0x4750_4B47)
            #expect(try Int32.fetchOne(db, sql: "PRAGMA user_version") == 10400)
            #expect(try String.fetchOne(db, sql: "SELECT planted FROM Trees WHERE OBJECTID = 1") == "2023-11-14T22:13:20.000Z")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Trees__ATTACH_MAP WHERE base_id = 1") == 1)
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('rtree_Trees_shape')") == "ok")
        }
    }

    @Test func packedRTreeAnswersLikeAScan() throws {
        let path = try writeReplica(rows: 5000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try ReplicaFile.open(path, readonly: true)
        try queue.read { db throws in
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('rtree_Trees_shape')") == "ok")
            let indexed = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM rtree_Trees_shape WHERE minx <= 20 AND maxx >= 10 AND miny <= 30 AND maxy >= 20")
            let scanned = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM Trees WHERE ST_MinX(shape) BETWEEN 10 AND 20 AND ST_MinY(shape) BETWEEN 20 AND 30")
            #expect(indexed == scanned && indexed == 11 * 11)
        }
    }

    @Test func localEditsAreLoggedByStockSQLiteTriggers() async throws {
        let path = try writeReplica(rows: 3)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try ReplicaFile.open(path)
        try await queue.write { db throws in
            try db.execute(
                sql: "INSERT INTO Trees(species, shape) VALUES ('new', ?)",
                arguments: [Data(GeoPackageBinary.encode(.point(Point(x: 1, y: 1)), srsID: 4326))])
            try db.execute(sql: "UPDATE Trees SET species = 'changed' WHERE OBJECTID = 2")
            try db.execute(sql: "DELETE FROM Trees WHERE OBJECTID = 1")
        }
        try await queue.read { db throws in
            let log = try Row.fetchAll(db, sql: "SELECT item, operation, global_id, object_id FROM outpost_sync_changes ORDER BY change_id")
            // The cascaded attachment delete may be logged before or after its feature's.
            #expect(
                Set(log.map { "\($0["item"] as String) \($0["operation"] as String) \($0["object_id"] as Int64)" }) == [
                    "feature insert 4", "feature update 2", "feature delete 1", "attachment delete 5",
                ])
            #expect(log.count == 4)
            let added = try #require(try String.fetchOne(db, sql: "SELECT GlobalID FROM Trees WHERE OBJECTID = 4"))
            #expect(GlobalID.normalize(added) == added)
            #expect(log[0]["global_id"] as String == added)
            // Deleting a feature took its attachment and the mapping row along.
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Trees__ATTACH") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Trees__ATTACH_MAP") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM rtree_Trees_shape WHERE id = 4") == 1)
        }
        // GlobalIDs never change, and server changes applied by a sync are not logged.
        #expect(throws: DatabaseError.self) {
            try queue.write { db in try db.execute(sql: "UPDATE Trees SET GlobalID = '{00000000-0000-4000-8000-999999999999}' WHERE OBJECTID = 2") }
        }
        try await queue.write { db throws in
            try db.execute(sql: "UPDATE outpost_sync_replica SET applying_server_changes = 1")
            try db.execute(sql: "UPDATE Trees SET species = 'from server' WHERE OBJECTID = 3")
            try db.execute(sql: "UPDATE outpost_sync_replica SET applying_server_changes = 0")
        }
        #expect(try ReplicaFile.info(path).pendingChanges == 4)
        try await expectValidGeoPackage(path)
    }

    @Test func refusesFilesThatAreNotReplicas() throws {
        let path = NSTemporaryDirectory() + "plain-\(UUID().uuidString).gpkg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE t(x)") }
        try queue.close()
        #expect(throws: ReplicaFile.Failure.notAGeoPackage(path)) { try ReplicaFile.info(path) }
    }
}
