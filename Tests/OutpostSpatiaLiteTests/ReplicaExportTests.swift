import Foundation
import GRDB
import OutpostGeoPackage
import OutpostGeometry
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Synchronization
import Testing

@testable import OutpostSpatiaLite

@Suite struct ReplicaExportTests {
    func plan(layers: String = "0", extra: [(String, String)] = [], service: ServiceDefinition) throws -> ReplicaPlan {
        let request = try CreateReplicaRequest.parse(RequestParameters([("layers", layers)] + extra))
        return try ReplicaPlanner.plan(request, service: service, replicaId: GlobalID.make(), owner: "", takenNames: [], now: 0)
    }

    /// A replica is one snapshot: with edits committing all the while, every feature whose
    /// generation is ≤ the one reported is in the replica, and no later one is.
    @Test func concurrentEditsAreEitherInTheSnapshotOrAfterIt() throws {
        let store = try makeTemporaryStore()
        let service = try store.schema.createService(pointLayerService(name: "Live"))
        try store.edits.insert(
            (0..<500).map {
                FeatureRow(
                    attributes: ["label": .string("p\($0)"), "value": .int(Int64($0))],
                    geometry: .point(Point(x: Double($0 % 50), y: Double($0 / 50))))
            },
            service: "Live", layer: 0)
        let stop = StopFlag()
        let editor = Thread {
            var n = 0
            while !stop.value.load(ordering: .relaxed) {
                n += 1
                _ = try? store.edits.applyEdits(
                    service: "Live",
                    edits: [
                        LayerEdits(
                            layerId: 0,
                            adds: [
                                EditFeature(attributes: ["label": .string("new\(n)")], geometry: ["x": 1, "y": 1])
                            ])
                    ], options: EditOptions())
            }
        }
        editor.start()
        defer { stop.value.store(true, ordering: .relaxed) }
        let replicaPlan = try plan(service: service.definition)
        for _ in 0..<15 {
            var bytes: [UInt8] = []
            let (definition, counts) = try store.sync.exportReplica(
                replicaPlan, to: .records(ReplicaJSONWriter(write: { bytes += $0 }, attachmentURL: nil)),
                serviceURL: "", serviceJSON: .null, layerJSON: [:])
            let document = try JSONParser.parse(String(decoding: bytes, as: UTF8.self))
            let exported = Set(
                document["layers"]?.arrayValue?.first?["features"]?.arrayValue?.compactMap { $0["attributes"]?["OBJECTID"]?.int64Value } ?? [])
            #expect(exported.count == counts.features)
            let generation = definition.layers[0].serverGen
            let expected = try store.read { db throws in
                Set(try Int64.fetchAll(db, sql: "SELECT OBJECTID FROM f_live_0 WHERE outpost_created_gen <= ?", arguments: [generation]))
            }
            #expect(exported == expected, "generation \(generation): \(exported.symmetricDifference(expected).count) features differ")
        }
        stop.value.store(true, ordering: .relaxed)
        #expect(try store.edits.currentGeneration() > 2, "the editor committed while replicas were made")
    }

    /// A GeoPackage is copied inside SQLite from the store attached to the file's connection:
    /// one snapshot, begun with the generation read, that holds no lock a writer waits on. An
    /// edit committed while the rows are copied succeeds at once, is after the file's
    /// generation, and is not in the file.
    @Test func aGeoPackageIsOneSnapshotThatNoWriterWaitsFor() throws {
        let store = try makeTemporaryStore()
        let service = try store.schema.createService(pointLayerService(name: "Live"))
        try store.edits.insert(
            (0..<500).map { FeatureRow(attributes: ["label": .string("p\($0)")], geometry: .point(Point(x: Double($0 % 50), y: 1))) },
            service: "Live", layer: 0)
        let path = NSTemporaryDirectory() + "snapshot-\(UUID().uuidString).gpkg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var during: EditOutcome?
        var waited = 0.0
        let (definition, counts) = try store.sync.exportReplica(
            try plan(service: service.definition), to: .geoPackage(path: path), serviceURL: "", serviceJSON: .null, layerJSON: [:]
        ) { phase in
            guard phase == .exportingData else { return }
            let start = Date()
            during = try? store.edits.applyEdits(
                service: "Live", edits: [LayerEdits(layerId: 0, adds: [EditFeature(attributes: ["label": .string("during")])])],
                options: EditOptions())
            waited = Date().timeIntervalSince(start)
        }
        let generation = try #require(during?.generation, "the edit during the export committed")
        #expect(waited < 2, "the writer did not wait for the export (\(waited) s)")
        #expect(generation > definition.replicaServerGen)
        let inFile = try ReplicaFile.open(path, readonly: true).read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM Points") ?? 0,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM Points WHERE label = 'during'") ?? 0
            )
        }
        #expect(counts.features == 500 && inFile.0 == 500 && inFile.1 == 0)
    }

    /// The file's connection reads the store attached to it, and a table of the file would hide
    /// a store table of the same name: a layer named like its own store table gets another
    /// name in the file (`_2`, as any clash), and every row is copied.
    @Test func aLayerNamedLikeAStoreTableIsCopiedWhole() throws {
        let store = try makeTemporaryStore()
        var definition = pointLayerService(name: "Clash")
        definition.layers[0].name = "f_clash_0"
        let service = try store.schema.createService(definition)
        #expect(try store.layer(service: "Clash", id: 0).tableName == "f_clash_0", "the layer is named like its store table")
        try store.edits.insert(
            (0..<10).map { FeatureRow(attributes: ["label": .string("p\($0)")], geometry: .point(Point(x: Double($0), y: 1))) },
            service: "Clash", layer: 0)
        let path = NSTemporaryDirectory() + "clash-\(UUID().uuidString).gpkg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (_, counts) = try store.sync.exportReplica(
            try plan(service: service.definition), to: .geoPackage(path: path), serviceURL: "", serviceJSON: .null, layerJSON: [:])
        let (table, rows) = try ReplicaFile.open(path, readonly: true).read { db in
            let table = try String.fetchOne(db, sql: "SELECT table_name FROM outpost_sync_layers") ?? ""
            return (table, try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0)
        }
        #expect(table == "f_clash_0_2" && rows == 10 && counts.features == 10)
    }

    @Test func whereAndGeometryFiltersMatchTheQueryEngine() throws {
        let store = try makeTemporaryStore()
        let service = try store.schema.createService(pointLayerService(name: "F"))
        try store.edits.insert(
            (0..<400).map {
                FeatureRow(
                    attributes: ["label": .string("p\($0)"), "value": .int(Int64($0 % 10))],
                    geometry: .point(Point(x: Double($0 % 20), y: Double($0 / 20))))
            },
            service: "F", layer: 0)
        let replicaPlan = try plan(
            extra: [("geometry", "2,2,9.5,7"), ("layerQueries", #"{"0":{"where":"value IN (1, 3) AND label LIKE 'p%'"}}"#)],
            service: service.definition)
        let path = NSTemporaryDirectory() + "filters-\(UUID().uuidString).gpkg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (_, counts) = try store.sync.exportReplica(replicaPlan, to: .geoPackage(path: path), serviceURL: "", serviceJSON: .null, layerJSON: [:])
        var query = LayerQuery()
        query.whereClause = "value IN (1, 3) AND label LIKE 'p%'"
        query.geometry = QueryGeometry(text: "2,2,9.5,7", geometryType: .envelope, inSR: nil)
        query.returnIdsOnly = true
        guard case .objectIds(let ids) = try store.features.query(query, service: "F", layer: 0) else {
            Issue.record("no ids")
            return
        }
        #expect(counts.features == ids.count && !ids.isEmpty)
        let inFile = try ReplicaFile.open(path, readonly: true).read { db in try Int64.fetchAll(db, sql: "SELECT OBJECTID FROM Points ORDER BY 1") }
        #expect(inFile == ids)
    }

    @Test func useGeometryFalseIgnoresTheReplicaGeometry() throws {
        let store = try makeTemporaryStore()
        let service = try store.schema.createService(pointLayerService(name: "G"))
        try store.edits.insert(
            (0..<100).map { FeatureRow(attributes: ["value": .int(Int64($0))], geometry: .point(Point(x: Double($0), y: 0))) },
            service: "G", layer: 0)
        func exported(_ layerQueries: String) throws -> Int {
            let replicaPlan = try plan(extra: [("geometry", "0,-1,9.5,1"), ("layerQueries", layerQueries)], service: service.definition)
            return try store.sync.exportReplica(
                replicaPlan, to: .records(ReplicaJSONWriter(write: { _ in }, attachmentURL: nil)), serviceURL: "", serviceJSON: .null,
                layerJSON: [:]
            ).1.features
        }
        #expect(try exported(#"{"0":{"useGeometry":true}}"#) == 10)
        #expect(try exported(#"{"0":{"useGeometry":false}}"#) == 100)
        #expect(try exported(#"{"0":{"useGeometry":false,"where":"value < 50"}}"#) == 50)
        #expect(try exported(#"{"0":{"queryOption":"all","where":"value < 50"}}"#) == 100)
        #expect(try exported(#"{"0":{"queryOption":"none"}}"#) == 0)
    }

    @Test func aRestartFailsTheJobsItInterrupted() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-\(UUID().uuidString)").path
        let store = try SpatiaLiteBackend(dataDirectory: directory)
        let running = try JobRecord(id: "j1", serviceName: "S", kind: .createReplica, replicaId: "{R}", replicaName: "r", submittedAt: 1)
            .applying(.started, at: 2).applying(.phase(.exportingData), at: 3)
        let done = try JobRecord(id: "j2", serviceName: "S", kind: .createReplica, replicaId: "{R}", replicaName: "r", submittedAt: 1)
            .applying(.started, at: 2).applying(.succeeded(resultFile: "x.json"), at: 3)
        try store.jobs.saveJob(running)
        try store.jobs.saveJob(done)
        let reopened = try SpatiaLiteBackend(dataDirectory: directory)
        #expect(try reopened.jobs.failUnfinishedJobs(now: 10) == 1)
        #expect(try reopened.jobs.job(id: "j1")?.status == .failed)
        #expect(try reopened.jobs.job(id: "j1")?.error?.details.first?.contains("restarted") == true)
        #expect(try reopened.jobs.job(id: "j2") == done)
    }

    @Test func registryRoundTripsADefinition() throws {
        let store = try makeTemporaryStore()
        let service = try store.schema.createService(pointLayerService(name: "R"))
        var definition = try plan(
            extra: [
                ("geometry", #"{"rings":[[[0,0],[0,5],[5,5],[0,0]]]}"#), ("geometryType", "esriGeometryPolygon"),
                ("replicaName", "round"), ("returnAttachments", "true"), ("attachmentsSyncDirection", "upload"),
            ],
            service: service.definition
        ).definition
        definition.setGeneration(3)
        let stored = try store.replicas.registerReplica(definition)
        #expect(try store.replicas.replica(service: "r", id: definition.id.lowercased()) == stored)
        #expect(stored == definition)
        #expect(try store.replicas.unregisterReplica(service: "R", id: definition.id))
        #expect(try store.replicas.replica(service: "R", id: definition.id) == nil)
    }
}

final class StopFlag: Sendable {
    let value = Atomic(false)
}
