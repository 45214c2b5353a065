import Foundation
import Logging
import OutpostPostgres
import PostgresNIO
import Testing

/// A fresh database on the test cluster `scripts/test.sh` starts (`OUTPOST_TEST_POSTGRES`),
/// migrated, with a running client; dropped afterwards. Without the cluster the test fails
/// saying how to get one: these tests are part of the suite, not optional.
struct TestDatabase {
    static let logger = Logger(label: "outpost.test.postgres")

    let client: PostgresClient
    let location: PostgresLocation

    static func with(_ body: (TestDatabase) async throws -> Void) async throws {
        let url = try #require(
            ProcessInfo.processInfo.environment["OUTPOST_TEST_POSTGRES"],
            "no test PostgreSQL: run scripts/test.sh, or scripts/postgres.sh start DIR PORT and set OUTPOST_TEST_POSTGRES")
        let admin = try PostgresLocation(url)
        var location = admin
        location.database = "outpost_t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try await withClient(admin) { client in
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(location.database)"), logger: logger)
        }
        do {
            try await withClient(location) { client in
                try await PostgresMigrations.migrate(client, logger: logger)
                try await body(TestDatabase(client: client, location: location))
            }
        } catch {
            try? await drop(location.database, admin: admin)
            throw error
        }
        try await drop(location.database, admin: admin)
    }

    static func withClient(
        _ location: PostgresLocation, maximumConnections: Int = 20, _ body: (PostgresClient) async throws -> Void
    )
        async throws
    {
        var configuration = try location.configuration()
        configuration.options.maximumConnections = maximumConnections
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await body(client)
        }
    }

    private static func drop(_ database: String, admin: PostgresLocation) async throws {
        try await withClient(admin) { client in
            try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(database) WITH (FORCE)"), logger: logger)
        }
    }
}
