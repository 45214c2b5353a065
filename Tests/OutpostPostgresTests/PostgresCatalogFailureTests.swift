import Foundation
import OutpostPostgres
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// A catalog read the database cannot answer throws (issue 45). It used to answer the catalog
/// the process held: a service another process had deleted went on being served, and a
/// process holding none answered an empty server.
@Suite struct PostgresCatalogFailureTests {
    @Test func aCatalogReadAgainstADatabaseGoneAwayThrowsUnavailable() throws {
        try TestDatabase.with { database in
            let backend = try PostgresBackend(database.location, maximumConnections: 2)
            defer { backend.close() }
            try backend.schema.createService(pointLayerService(name: "Trees"))
            #expect(try backend.catalog().service(named: "Trees") != nil, "the catalog is held")

            // The database goes away under the running backend: its connections are cut and
            // a new one is refused.
            try PostgresConnection(TestPostgres.server()).execute("DROP DATABASE \(database.location.database) WITH (FORCE)")

            let error = #expect(throws: StoreError.self) { try backend.catalog() }
            guard case .unavailable = error else {
                Issue.record("expected .unavailable, got \(String(describing: error))")
                return
            }
            // A request naming a service is told to retry (503), not that the service is gone.
            let lookup = #expect(throws: StoreError.self) { try backend.service(named: "Trees") }
            #expect(lookup?.arcGISError.kind == .unavailable)
            #expect(throws: StoreError.self) { try backend.schema.catalog() }
        }
    }
}
