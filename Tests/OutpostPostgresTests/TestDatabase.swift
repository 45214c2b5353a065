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

/// Runs `body` on `count` threads of their own at once (blocking database calls: not on the
/// cooperative pool, whose two threads here would run them two at a time) and returns each
/// thread's answer in order; the first error is rethrown after all have finished.
func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
    let answers = Guarded<[Int: Result<T, any Error>]>([:])
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        Thread {
            let answer = Result { try body(index) }
            answers.withLock { $0[index] = answer }
            done.leave()
        }.start()
    }
    done.wait()
    return try (0..<count).map { try answers.value[$0]!.get() }
}
