import Foundation
import OutpostPostgres
import OutpostTestSupport
import Testing

/// A database restored from a logical dump into a cluster whose transaction counter is lower
/// than the one it was dumped from holds generations ahead of every transaction to come:
/// changes written after it would look older than the devices' generations and never reach
/// them. The backend refuses to open it (docs/operations.md, "PostgreSQL").
@Suite struct RestoredDatabaseTests {
    @Test func aDatabaseWhoseGenerationsAreAheadOfItsTransactionIDsIsRefused() throws {
        let location = try TestPostgres.makeDatabase(label: "behind")
        let backend = try PostgresBackend(location, maximumConnections: 2)
        // Ticks its own cluster took pass.
        let tick = try backend.pool.transaction(.repeatableRead) { try GenerationTicks.take(on: $0) }
        try backend.pool.withConnection { try GenerationTicks.checkTransactionIDs(on: $0) }
        // A tick as a cluster ten million transactions further on took it: what a dump of
        // that cluster brings into this one.
        let ahead = tick.snapshot.xmax + 10_000_000
        try backend.pool.query("INSERT INTO outpost_ticks(snapshot) VALUES (\("\(ahead):\(ahead):")::pg_snapshot)")
        backend.close()

        let behind = #expect(throws: TransactionIDsBehind.self) { _ = try PostgresBackend(location, maximumConnections: 2) }
        #expect(behind?.newest == ahead && (behind?.next ?? .max) < ahead)
        #expect(behind.map { "\($0)" }?.contains("pg_basebackup") == true)
    }
}
