import Foundation
import Logging
import OutpostPostgres
import OutpostSync
import PostgresNIO
import Testing

/// The race of scale-out.md §3.5 against Outpost's ticks (docs/postgres.md, "Generations"):
/// eight writers commit single-row edits, some holding their transaction open a little
/// longer, while a device syncs in a loop. Every row committed reaches the device exactly
/// once. In the same reads, the cursor SQLite's single writer made safe — `serverGen =
/// max(gen)` over a sequence — misses rows: the race is real in this run.
@Suite(.serialized) struct GenerationRaceTests {
    static let logger = TestDatabase.logger

    /// One sync of the device: in one REPEATABLE READ transaction, the rows changed since its
    /// tick (and, for the control, since its naive generation), then the next tick.
    static func sync(
        _ connection: PostgresConnection, tick: GenerationTick, naive: Int64
    ) async throws -> (rows: [String], naiveRows: [String], tick: GenerationTick, naive: Int64) {
        try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: logger)
        var rows: [String] = []
        let changed = try GenerationTicks.changes(select: "globalid", from: "race", stamp: "outpost_xid", since: tick.snapshot)
        for try await id in try await connection.query(changed, logger: logger).decode(String.self) { rows.append(id) }
        var naiveRows: [String] = []
        var newest = naive
        for try await (id, gen) in try await connection.query("SELECT globalid, naive_gen FROM race WHERE naive_gen > \(naive)", logger: logger)
            .decode((String, Int64).self)
        {
            naiveRows.append(id)
            newest = max(newest, gen)
        }
        let next = try await GenerationTicks.take(replica: "device", on: connection, logger: logger)
        try await connection.query("COMMIT", logger: logger)
        return (rows, naiveRows, next, newest)
    }

    @Test func concurrentWritersAreNeitherMissedNorSentTwice() async throws {
        try await TestDatabase.with { database in
            let client = database.client
            try await client.query(
                PostgresQuery(
                    unsafeSQL: """
                        CREATE SEQUENCE race_gen;
                        """), logger: Self.logger)
            try await client.query(
                PostgresQuery(
                    unsafeSQL: """
                        CREATE TABLE race (
                            objectid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                            globalid text NOT NULL UNIQUE,
                            outpost_xid bigint NOT NULL DEFAULT \(GenerationTicks.stamp),
                            naive_gen bigint NOT NULL,
                            shape geometry(Point, 4326))
                        """), logger: Self.logger)
            try await client.query("CREATE INDEX race_changes ON race (outpost_xid)", logger: Self.logger)

            let first = try await client.withConnection { connection in
                try await Self.sync(connection, tick: .beginning, naive: 0)
            }
            #expect(first.rows.isEmpty)
            let committed = Locked<[String]>([])
            let stop = Locked(false)
            let writers = (0..<8).map { writer in
                Task {
                    var count = 0
                    var random = SystemRandomNumberGenerator()
                    while !stop.value {
                        let id = "{\(UUID().uuidString)}"
                        let lingers = Int.random(in: 0..<10, using: &random) < 3
                        try await client.withConnection { connection in
                            try await connection.query("BEGIN", logger: Self.logger)
                            // The generation is taken here, as SQLite's counter was; the commit may come later.
                            try await connection.query(
                                """
                                INSERT INTO race(globalid, naive_gen, shape)
                                VALUES (\(id), nextval('race_gen'), ST_SetSRID(ST_MakePoint(\(Double(writer)), \(Double(count))), 4326))
                                """, logger: Self.logger)
                            if lingers { try await Task.sleep(for: .microseconds(Int.random(in: 0...3000, using: &random))) }
                            try await connection.query("COMMIT", logger: Self.logger)
                        }
                        committed.withLock { $0.append(id) }
                        count += 1
                    }
                }
            }
            var received: [String] = []
            var naiveReceived: [String] = []
            var tick = first.tick
            var naive = first.naive
            var syncs = 0
            // Three seconds, and at least 200 rows however loaded the machine (at most 60 s).
            let until = ContinuousClock.now + .seconds(3)
            let cap = ContinuousClock.now + .seconds(60)
            try await client.withConnection { connection in
                while ContinuousClock.now < until || (committed.value.count < 200 && ContinuousClock.now < cap) {
                    let answer = try await Self.sync(connection, tick: tick, naive: naive)
                    received += answer.rows
                    naiveReceived += answer.naiveRows
                    (tick, naive) = (answer.tick, answer.naive)
                    syncs += 1
                }
            }
            stop.withLock { $0 = true }
            for writer in writers { try await writer.value }
            // Every writer has committed: one last sync takes what remains.
            let last = try await client.withConnection { try await Self.sync($0, tick: tick, naive: naive) }
            received += last.rows
            naiveReceived += last.naiveRows

            let all = Set(committed.value)
            let missed = all.subtracting(received).count
            let duplicated = received.count - Set(received).count
            let naiveMissed = all.subtracting(naiveReceived).count
            print(
                "race: \(all.count) rows by 8 writers, \(syncs) syncs; ticks missed \(missed), duplicated \(duplicated); max(gen) missed \(naiveMissed)"
            )
            #expect(all.count >= 200, "the writers wrote")
            #expect(missed == 0 && duplicated == 0 && Set(received) == all)
            #expect(naiveMissed > 0, "max(gen) loses rows in the same run: the race happened")
        }
    }

    @Test func migrationsRunOnceEvenStartedTogetherAndANewerDatabaseIsRefused() async throws {
        try await TestDatabase.with { database in
            // Already migrated by TestDatabase: nothing left to do, from three clients at once.
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<3 { group.addTask { try await PostgresMigrations.migrate(database.client, logger: Self.logger) } }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(applied.isEmpty)
            let tick = try await database.client.withConnection { connection in
                try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: Self.logger)
                let taken = try await GenerationTicks.take(on: connection, logger: Self.logger)
                try await connection.query("COMMIT", logger: Self.logger)
                return taken
            }
            let stored = try await database.client.withConnection { try await GenerationTicks.snapshot(of: tick.tick, on: $0, logger: Self.logger) }
            #expect(stored == tick.snapshot)
            #expect(try await database.client.withConnection { try await GenerationTicks.snapshot(of: 999_999, on: $0, logger: Self.logger) } == nil)

            try await database.client.query(
                "INSERT INTO outpost_schema_migrations(version, name) VALUES (999, 'from the future')", logger: Self.logger)
            await #expect(throws: PostgresMigrationError.newerDatabase(database: 999, known: PostgresMigrations.all.count)) {
                try await PostgresMigrations.migrate(database.client, logger: Self.logger)
            }
        }
    }
}

/// A value shared by the test's tasks.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T { try lock.withLock { try body(&stored) } }
}
