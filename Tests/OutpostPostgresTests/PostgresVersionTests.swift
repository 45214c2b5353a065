import Foundation
import OutpostPostgres
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// What several processes need of named versions on PostgreSQL (docs/postgres.md, "Versioned
/// services").
@Suite struct PostgresVersionTests {
    /// Reconcile-and-post locks the version's row before it reads the version's rows: a post
    /// meeting another one in flight waits for it, then finds the version empty — its rows are
    /// never posted twice (without the lock it reads the rows the other has not yet committed
    /// away, and posts them again: checked).
    @Test func aPostWaitsForAnotherPostOfTheSameVersion() throws {
        let backend = try TestPostgres.makeBackend()
        defer { backend.close() }
        var service = pointLayerService(name: "Parcels")
        service.isVersioned = true
        let layer = try backend.schema.createService(service).layers[0]
        let version = try backend.versions.createVersion(service: "Parcels", name: "survey", description: "", access: "public")
        _ = try backend.versions.applyVersionEdits(
            service: "Parcels", version: version.name,
            edits: [LayerEdits(layerId: 0, adds: [EditFeature(attributes: ["label": "a"], geometry: ["x": 1, "y": 1])])],
            options: EditOptions(), context: EditContext())
        let location = backend.pool.location
        let name = version.name
        let posted = try onThreads(2) { index -> Int in
            if index == 0 {
                // Another post in flight: it holds the version's row and empties the version.
                let other = try PostgresConnection(location)
                try other.execute("BEGIN")
                try other.query("SELECT 1 FROM outpost_versions WHERE name = \(name) FOR UPDATE")
                try other.query("DELETE FROM \(identifier: layer.versionTable) WHERE outpost_version = \(name)")
                Thread.sleep(forTimeInterval: 0.6)
                try other.execute("COMMIT")
                return 0
            }
            Thread.sleep(forTimeInterval: 0.2)
            return try backend.versions.reconcileAndPost(service: "Parcels", version: name).posted
        }
        #expect(posted[1] == 0, "the post waited, then found the version empty")
        #expect(try backend.pool.query("SELECT count(*) FROM \(identifier: layer.tableName)").first?.int64(0) == 0)
    }
}
