import Foundation
import OutpostGeometry
import OutpostPostgres
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Synchronization
import Testing

/// What edits leave for the change feed on PostgreSQL (docs/postgres.md, "Generations"):
/// each write stamped by the database, a delete's tombstone, and writers side by side.
@Suite(.serialized) struct PostgresStampTests {
    @Test func editsAreStampedAndTheChangesSinceATickAreExactlyThem() throws {
        try TestDatabase.with { database in
            let backend = try PostgresBackend(database.location)
            try backend.schema.createService(pointLayerService(name: "Points"))
            let adds = (1...3).map { EditFeature(attributes: ["label": .string("p\($0)")], geometry: ["x": .double(Double($0)), "y": .double(0)]) }
            let added = try backend.edits.applyEdits(service: "Points", edits: [LayerEdits(layerId: 0, adds: adds)], options: EditOptions())
            let stamp = try #require(added.generation)
            let pool = database.pool
            let before = try pool.transaction(.repeatableRead) { try GenerationTicks.take(on: $0) }
            let changed = try backend.edits.applyEdits(
                service: "Points",
                edits: [
                    LayerEdits(
                        layerId: 0, updates: [EditFeature(attributes: ["OBJECTID": .int(1), "label": .string("moved")])], deletes: [.objectId(2)])
                ], options: EditOptions(), context: EditContext(replicaId: "{R}"))
            let second = try #require(changed.generation)
            #expect(second > stamp)
            // The layer's last edit date: from this connection's own row, no writer waiting on another's.
            let edited = try backend.features.lastEditDate(of: try backend.schema.layer(service: "Points", id: 0))
            #expect(edited == changed.editMoment)
            let rows = try pool.withConnection { connection in
                try connection.query(
                    GenerationTicks.changes(
                        select: "\"OBJECTID\", outpost_xid, outpost_created_xid, outpost_replica", from: "f_points_0", stamp: "outpost_xid",
                        since: before.snapshot)
                ).rows
            }
            #expect(rows.count == 1)
            #expect(try rows.first?.int64(0) == 1 && rows.first?.int64(1) == second, "the update, stamped with its transaction")
            #expect(try rows.first?.int64(2) == stamp, "created by the first transaction still")
            #expect(rows.first?.string(3) == "{R}")
            let tombstones = try pool.withConnection { connection in
                try connection.query(
                    GenerationTicks.changes(
                        select: "object_id, created_xid, outpost_xid, replica_id", from: "outpost_tombstones", stamp: "outpost_xid",
                        since: before.snapshot)
                ).rows
            }
            #expect(tombstones.count == 1)
            #expect(try tombstones.first?.int64(0) == 2 && tombstones.first?.int64(1) == stamp && tombstones.first?.int64(2) == second)
            // A write by hand, outside Outpost, is stamped all the same (the trigger).
            try pool.query("UPDATE f_points_0 SET label = 'by hand' WHERE \"OBJECTID\" = 3")
            let byHand = try pool.query("SELECT outpost_xid > \(second) FROM f_points_0 WHERE \"OBJECTID\" = 3").first?.bool(0)
            #expect(byHand == true)
        }
    }

    @Test func eightWritersSideBySideLoseNothing() throws {
        try TestDatabase.with(maximumConnections: 30) { database in
            let backend = try PostgresBackend(database.location, maximumConnections: 8)
            try backend.schema.createService(pointLayerService(name: "Points"))
            let results = try onThreads(8) { writer in
                (0..<25).map { n in
                    let feature = EditFeature(
                        attributes: ["label": .string("w\(writer)-\(n)"), "value": .int(Int64(n))],
                        geometry: ["x": .double(Double(writer)), "y": .double(Double(n))])
                    return Result {
                        try backend.edits.applyEdits(service: "Points", edits: [LayerEdits(layerId: 0, adds: [feature])], options: EditOptions())
                    }
                }
            }
            let outcomes = try results.flatMap { $0 }.map { try $0.get() }
            #expect(outcomes.allSatisfy { $0.layers[0].addResults[0].success })
            let objectIds = Set(outcomes.compactMap { $0.layers[0].addResults[0].objectId })
            #expect(objectIds.count == 200)
            let count = try database.pool.query("SELECT count(DISTINCT label) FROM f_points_0").first?.int64(0)
            #expect(count == 200)
        }
    }

    @Test func aBulkLoadKeepsEveryValueAndAnswersTheObjectIdsInOrder() throws {
        try TestDatabase.with { database in
            let backend = try PostgresBackend(database.location)
            try backend.schema.createService(pointLayerService(name: "Points"))
            let awkward = "tab\tnew\nline \\ back"
            let rows = (0..<1000).map { n in
                FeatureRow(
                    attributes: ["label": .string(n == 7 ? awkward : "r\(n)"), "value": .string("\(n)")], geometry: .point(Point(x: Double(n), y: 1)))
            }
            let ids = try backend.edits.insert(rows, service: "Points", layer: 0)
            #expect(ids == Array(1...1000).map(Int64.init))
            let seventh = try database.pool.query("SELECT label, value, ST_X(shape) FROM f_points_0 WHERE \"OBJECTID\" = 8").first
            #expect(seventh?.string(0) == awkward && seventh?.string(1) == "7")
            #expect(try seventh?.double(2) == 7)
            #expect(throws: StoreError.self) {
                try backend.edits.insert([FeatureRow(attributes: ["value": .string("many")])], service: "Points", layer: 0)
            }
        }
    }

    /// The load takes its OBJECTIDs from the identity as COPY reads the rows; an editor adding
    /// features meanwhile draws from the same identity, and the answer still pairs each row
    /// with its own OBJECTID.
    @Test func aLoadsObjectIdsPairWithItsRowsWhileAnotherWriterAdds() throws {
        try TestDatabase.with { database in
            let backend = try PostgresBackend(database.location)
            try backend.schema.createService(pointLayerService(name: "Points"))
            try backend.edits.insert([FeatureRow(attributes: ["label": .string("seed")])], service: "Points", layer: 0)
            let loading = Atomic<Bool>(true)
            let added = Atomic<Int>(0)
            let editor = Thread {
                let other = try! PostgresBackend(database.location)
                while loading.load(ordering: .relaxed) {
                    let edit = LayerEdits(layerId: 0, adds: [EditFeature(attributes: ["label": .string("online")])])
                    if (try? other.edits.applyEdits(service: "Points", edits: [edit], options: EditOptions())) != nil {
                        added.add(1, ordering: .relaxed)
                    }
                }
            }
            editor.start()
            while added.load(ordering: .relaxed) == 0 { Thread.sleep(forTimeInterval: 0.001) }
            let rows = (0..<30_000).map { n in FeatureRow(attributes: ["label": .string("r\(n)")], geometry: .point(Point(x: 1, y: 1))) }
            let ids = try backend.edits.insert(rows, service: "Points", layer: 0)
            loading.store(false, ordering: .relaxed)
            while !editor.isFinished { Thread.sleep(forTimeInterval: 0.01) }
            let labels = Dictionary(
                uniqueKeysWithValues: try database.pool.query("SELECT \"OBJECTID\", label FROM f_points_0").rows.map {
                    (try $0.required(0, $0.int64), $0.string(1))
                })
            #expect(ids.count == rows.count)
            #expect(ids[ids.count - 1] - ids[0] + 1 > Int64(ids.count), "the editor drew OBJECTIDs in the middle of the load")
            #expect(ids.enumerated().allSatisfy { labels[$1] == "r\($0)" })
            #expect(labels.count == 1 + rows.count + added.load(ordering: .relaxed))
        }
    }

    @Test func aLargeLoadIntoAnEmptyLayerRebuildsItsIndexesAsTheyWere() throws {
        try TestDatabase.with { database in
            let backend = try PostgresBackend(database.location)
            try backend.schema.createService(pointLayerService(name: "Points"))
            let indexes = "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'f_points_0' ORDER BY indexname"
            let before = try database.pool.query("\(unescaped: indexes)").rows.map { [$0.string(0), $0.string(1)] }
            #expect(before.count == 4, "primary key, GlobalID, shape, changes")
            let count = 12_000
            let rows = (0..<count).map { n in
                FeatureRow(attributes: ["label": .string("r\(n)")], geometry: .point(Point(x: Double(n % 100), y: Double(n / 100))))
            }
            let ids = try backend.edits.insert(rows, service: "Points", layer: 0)
            #expect(ids == Array(1...Int64(count)))
            // Statistics right after the load (its ANALYZE), not when autovacuum comes round.
            let statistics = try database.pool.query("SELECT count(*) FROM pg_stats WHERE tablename = 'f_points_0'").first?.int64(0)
            #expect((statistics ?? 0) > 0)
            #expect(try database.pool.query("\(unescaped: indexes)").rows.map { [$0.string(0), $0.string(1)] } == before)
            // The rebuilt unique index refuses a GlobalID twice; a failed load into the (now full)
            // layer leaves the indexes where they are.
            let gid = try #require(try database.pool.query("SELECT \"GlobalID\" FROM f_points_0 LIMIT 1").first?.string(0))
            #expect(throws: (any Error).self) {
                try backend.edits.insert(
                    (0..<count).map { n in FeatureRow(attributes: ["GlobalID": .string(n == 5 ? gid : GlobalID.make())]) }, service: "Points",
                    layer: 0)
            }
            #expect(try database.pool.query("\(unescaped: indexes)").rows.map { [$0.string(0), $0.string(1)] } == before)
            #expect(try backend.features.count(service: "Points", layer: 0) == count)
            // ObjectIDs kept from elsewhere: the identity continues after the largest.
            try backend.edits.insert(
                [FeatureRow(attributes: ["OBJECTID": .int(90_000)], geometry: .point(Point(x: 1, y: 1)))], service: "Points", layer: 0,
                keepingObjectIds: true)
            #expect(try backend.edits.insert([FeatureRow(attributes: [:])], service: "Points", layer: 0) == [90_001])
        }
    }
}
