import OutpostPostgres
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// Compaction on PostgreSQL (docs/postgres.md, "Maintenance"): what every replica that may
/// still sync has seen goes; what one of them still needs stays.
@Suite struct PostgresMaintenanceTests {
    @Test func compactionPurgesOnlyWhatEveryRegisteredReplicaHasSeen() throws {
        let backend = try TestPostgres.makeBackend()
        _ = try backend.schema.createService(pointLayerService(name: "Points"))
        #expect(backend.maintenance.health() == .healthy)
        let ids = (0..<3).map { _ in GlobalID.make() }
        try PostgresUploadTests.edit(backend, LayerEdits(layerId: 0, adds: ids.map { PostgresUploadTests.point("p", $0) }))
        let early = try PostgresUploadTests.replica(backend, name: "early")
        try PostgresUploadTests.edit(backend, LayerEdits(layerId: 0, deletes: [.globalId(ids[0])]))
        let late = try PostgresUploadTests.replica(backend, name: "late")
        try PostgresUploadTests.edit(backend, LayerEdits(layerId: 0, deletes: [.globalId(ids[1])]))
        // The early replica uploads once: its receipt is kept while it is registered.
        _ = try PostgresUploadTests.upload(backend, early, LayerEdits(layerId: 0, adds: [PostgresUploadTests.point("e", GlobalID.make())]))
        let counts = try backend.maintenance.counts()
        #expect(counts.replicas == 2 && counts.conflicts == 0 && counts.databaseBytes > 0)

        // The early replica has seen neither delete: nothing goes.
        #expect(try backend.maintenance.compact() == CompactReport(tombstones: 0, receipts: 0))
        #expect(try backend.replicas.unregisterReplica(service: "Points", id: early.id))
        // Now the oldest is the late replica's, which saw the first delete only.
        #expect(try backend.maintenance.compact() == CompactReport(tombstones: 1, receipts: 1))
        #expect(try backend.maintenance.compact() == CompactReport(tombstones: 0, receipts: 0))
        // The late replica still syncs from its tick and is sent the delete it had not seen.
        #expect(try PostgresUploadTests.deletesSent(backend, to: late) == [ids[1]])
        let ticks = try backend.pool.query("SELECT min(tick) FROM outpost_ticks").first?.int64(0)
        #expect(ticks == late.layers[0].serverGen, "older ticks went; the late replica's stays")

        // A replica being exported by another process holds a tick before it registers: the
        // deletes after that tick stay, those before go once no registered replica needs them.
        _ = try backend.pool.transaction(.repeatableRead) { try GenerationTicks.take(replica: GlobalID.make(), on: $0) }
        try PostgresUploadTests.edit(backend, LayerEdits(layerId: 0, deletes: [.globalId(ids[2])]))
        #expect(try backend.replicas.unregisterReplica(service: "Points", id: late.id))
        #expect(try backend.maintenance.compact().tombstones == 1)
        let left = try backend.pool.query("SELECT global_id FROM outpost_tombstones").rows.map { $0.string(0) }
        #expect(left == [ids[2]])
    }

    /// A read of the change feed for no replica (a locator's refresh probe, an export without
    /// sync) holds no tick: once no replica needs them, compaction purges the tombstones.
    /// (It held one for an hour, as a replica being created: the CI's interop finding.)
    @Test func aReadForNoReplicaHoldsNoTombstones() throws {
        let backend = try TestPostgres.makeBackend()
        _ = try backend.schema.createService(pointLayerService(name: "Points"))
        let id = GlobalID.make()
        try PostgresUploadTests.edit(backend, LayerEdits(layerId: 0, adds: [PostgresUploadTests.point("p", id)]))
        let refresh = ReplicaDefinition(
            id: "", name: "refresh", serviceName: "Points", syncModel: .none, spatialReference: SpatialReference(wkid: 3857),
            layers: [ReplicaLayer(layerId: 0, queryOption: .useFilter, useGeometry: false, serverGen: 0)])
        _ = try backend.sync.readChangeFeed(refresh) { $0.generation }
        // Deleted after the read: a tick the read held would keep the tombstone.
        try PostgresUploadTests.edit(backend, LayerEdits(layerId: 0, deletes: [.globalId(id)]))
        #expect(try backend.maintenance.compact().tombstones == 1)
    }

    /// A setting is kept, replaced and forgotten, as on SpatiaLite.
    @Test func aSettingIsKeptReplacedAndForgotten() throws {
        let backend = try TestPostgres.makeBackend()
        #expect(try backend.maintenance.setting(.helperServices) == nil)
        try backend.maintenance.setSetting(.helperServices, to: #"{"route":[]}"#)
        try backend.maintenance.setSetting(.helperServices, to: #"{"geocode":["A"]}"#)
        #expect(try HelperServiceChoice.read(from: backend) == HelperServiceChoice(geocode: ["A"]))
        try backend.maintenance.setSetting(.helperServices, to: nil)
        #expect(try backend.maintenance.setting(.helperServices) == nil)
    }

    /// Sweeps that several processes would make at once are made by one: while one holds the
    /// name, another process's call skips its turn; once done, the name is free again.
    @Test func oneProcessAtATimeSweepsAndTheOthersSkipTheirTurn() throws {
        let backend = try TestPostgres.makeBackend()
        let other = try PostgresBackend(backend.pool.location, maximumConnections: 2)
        defer { other.close() }
        let skipped = try backend.unlessAnotherProcessIs("outpost result file sweep") {
            try other.unlessAnotherProcessIs("outpost result file sweep") { "swept twice" }
        }
        #expect(skipped == .some(nil), "the second process skipped while the first swept")
        #expect(try other.unlessAnotherProcessIs("outpost result file sweep") { "swept" } == "swept")
        #expect(try other.unlessAnotherProcessIs("outpost orphan sweep") { 1 } == 1)
    }
}
