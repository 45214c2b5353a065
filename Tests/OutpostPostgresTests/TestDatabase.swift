import Foundation
import OutpostPostgres
import OutpostTestSupport
import Testing

/// A fresh database on the test cluster `scripts/test.sh` starts (`OUTPOST_TEST_POSTGRES`),
/// migrated, with a pool; dropped afterwards. Without the cluster the test fails saying how
/// to get one: these tests are part of the suite, not optional.
struct TestDatabase {
    let pool: PostgresPool
    let location: PostgresLocation

    static func with(maximumConnections: Int = 20, _ body: (TestDatabase) throws -> Void) throws {
        let url = try #require(
            ProcessInfo.processInfo.environment["OUTPOST_TEST_POSTGRES"],
            "no test PostgreSQL: run scripts/test.sh, or scripts/postgres.sh start DIR PORT and set OUTPOST_TEST_POSTGRES")
        let admin = try PostgresLocation(url)
        var location = admin
        location.database = "outpost_t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try PostgresConnection(admin).execute("CREATE DATABASE \(location.database)")
        defer { try? PostgresConnection(admin).execute("DROP DATABASE IF EXISTS \(location.database) WITH (FORCE)") }
        let pool = PostgresPool(location, maximumConnections: maximumConnections)
        defer { pool.close() }
        try PostgresMigrations.migrate(pool)
        try body(TestDatabase(pool: pool, location: location))
    }
}
