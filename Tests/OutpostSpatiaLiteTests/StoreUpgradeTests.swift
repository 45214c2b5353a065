import Foundation
import GRDB
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostSpatiaLite

/// Upgrades (docs/operations.md, "Upgrades"): a data folder as the previous release left it
/// opens with this build, its migrations run once, and a replica registered before syncs on;
/// a folder a newer release wrote is refused and left alone.
@Suite struct StoreUpgradeTests {
    /// The migrations this release added over the previous one (v15): undone in a folder this
    /// build wrote, which leaves it as that release would have (their only changes).
    static let addedSinceTheLastRelease = [
        "v16-layer-subtypes", "v17-store-identity", "v18-upload-owners", "v19-oauth", "v20-api-keys", "v21-store-flags", "v22-locators",
        "v23-networks", "v24-settings",
    ]

    static func asThePreviousReleaseLeftIt(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "ALTER TABLE outpost_layers DROP COLUMN subtypes")
            try db.execute(sql: "DROP TABLE outpost_store_identity")
            try db.execute(sql: "ALTER TABLE outpost_uploads DROP COLUMN owner")
            for table in ["outpost_oauth_apps", "outpost_oauth_codes", "outpost_oauth_refresh_tokens", "outpost_oauth_sealing_key"] {
                try db.execute(sql: "DROP TABLE \(table)")
            }
            try db.execute(sql: "DROP INDEX outpost_tokens_api_slot")
            try db.execute(sql: "DROP INDEX outpost_tokens_refresh_family")
            for column in ["api_slot", "api_key_sealed", "refresh_family"] {
                try db.execute(sql: "ALTER TABLE outpost_tokens DROP COLUMN \(column)")
            }
            try db.execute(sql: "ALTER TABLE outpost_tokens DROP COLUMN client_id")
            try db.execute(sql: "ALTER TABLE outpost_tokens DROP COLUMN role")
            try db.execute(sql: "ALTER TABLE outpost_result_file_owners DROP COLUMN service")
            try db.execute(sql: "DROP TABLE outpost_store_flags")
            for table in [
                "outpost_locator_words", "outpost_locator_trigrams", "outpost_locator_entries", "outpost_locators", "outpost_networks",
                "outpost_settings",
            ] {
                try db.execute(sql: "DROP TABLE \(table)")
            }
            for identifier in addedSinceTheLastRelease {
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [identifier])
            }
        }
        try queue.close()
    }

    @Test func aFolderOfThePreviousReleaseOpensMigratesOnceAndItsReplicaSyncsOn() throws {
        let store = try makeTemporaryStore()
        _ = try store.schema.createService(pointLayerService(name: "Points"))
        let replica = try Contract.createReplica(store, name: "before")
        try Self.asThePreviousReleaseLeftIt(store.path)
        #expect(try SpatiaLiteBackend.pendingMigrations(dataDirectory: store.directory) == Self.addedSinceTheLastRelease)

        let upgraded = try SpatiaLiteBackend(dataDirectory: store.directory)
        #expect(try SpatiaLiteBackend.pendingMigrations(dataDirectory: store.directory) == [])
        #expect(try upgraded.identity().epoch == 0 && !(try upgraded.identity().id.isEmpty))
        #expect(try upgraded.service(named: "Points").definition.layers[0].subtypes == nil)
        // The replica registered before the upgrade uploads and downloads as ever.
        let registered = try #require(try upgraded.replicas.replica(service: "Points", id: replica.id))
        var sync = SynchronizeReplicaRequest(replicaId: replica.id)
        sync.rollbackOnFailure = false
        let edits = LayerEdits(
            layerId: 0, adds: [EditFeature(attributes: ["GlobalID": .string(GlobalID.make()), "label": "after"], geometry: ["x": 1, "y": 2])])
        let outcome = try upgraded.sync.applySyncUpload(try SyncPlanner.plan(sync, replica: registered, edits: [edits]), fingerprint: [1])
        #expect(outcome.results[0].addResults.map { $0.success } == [true])
        #expect(try upgraded.features.count(service: "Points", layer: 0) == 1)
    }

    @Test func aFolderANewerReleaseWroteIsRefusedAndLeftAsItIs() throws {
        let store = try makeTemporaryStore()
        let queue = try DatabaseQueue(path: store.path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations(identifier) VALUES ('v99-from-the-future')") }
        try queue.close()
        #expect(throws: StoreError.self) { try SpatiaLiteBackend(dataDirectory: store.directory) }
        #expect(throws: StoreError.self) { try SpatiaLiteBackend.pendingMigrations(dataDirectory: store.directory) }
        let applied = try DatabaseQueue(path: store.path).read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(applied.last == "v99-from-the-future" && applied.count == SpatiaLiteBackend.knownMigrations.count + 1)
    }

    /// Every earlier schema: a folder left at each migration since the first opens with this
    /// build, which applies the rest in order, and serves and takes edits.
    @Test(arguments: SpatiaLiteBackend.knownMigrations.dropLast())
    func aFolderLeftAtAnyEarlierMigrationOpensWithTheRestApplied(_ last: String) throws {
        let folder = TestFolders.make("upgrade")
        var configuration = Configuration()
        configuration.prepareDatabase { db in try SpatiaLite.attach(to: db.sqliteConnection!) }
        let pool = try DatabasePool(path: folder + "/" + SpatiaLiteBackend.databaseFileName, configuration: configuration)
        try SpatiaLiteBackend.migrator.migrate(pool, upTo: last)
        try pool.close()
        let later = Array(SpatiaLiteBackend.knownMigrations.drop { $0 != last }.dropFirst())
        #expect(try SpatiaLiteBackend.pendingMigrations(dataDirectory: folder) == later)
        let store = try SpatiaLiteBackend(dataDirectory: folder)
        #expect(try SpatiaLiteBackend.pendingMigrations(dataDirectory: folder) == [])
        _ = try store.schema.createService(pointLayerService(name: "Points"))
        let outcome = try store.edits.applyEdits(
            service: "Points", edits: [LayerEdits(layerId: 0, adds: [EditFeature(attributes: ["label": "a"], geometry: ["x": 1, "y": 2])])],
            options: EditOptions())
        #expect(outcome.layers[0].addResults.map { $0.success } == [true])
    }
}
