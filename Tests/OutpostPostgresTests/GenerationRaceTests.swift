import Foundation
import OutpostPostgres
import OutpostSync
import OutpostTestSupport
import Testing

/// The race of scale-out.md §3.5 against Outpost's ticks (docs/postgres.md, "Generations"):
/// eight writers commit single-row edits, some holding their transaction open a little
/// longer, while a device syncs in a loop. Every row committed reaches the device exactly
/// once. In the same reads, the cursor SQLite's single writer made safe — `serverGen =
/// max(gen)` over a sequence — misses rows: the race is real in this run.
@Suite(.serialized) struct GenerationRaceTests {
    /// One sync of the device: in one REPEATABLE READ transaction, the rows changed since its
    /// tick (and, for the control, since its naive generation), then the next tick.
    static func sync(
        _ pool: PostgresPool, tick: GenerationTick, naive: Int64
    ) throws -> (rows: [String], naiveRows: [String], tick: GenerationTick, naive: Int64) {
        try pool.transaction(.repeatableRead) { connection in
            let changed = GenerationTicks.changes(select: "globalid", from: "race", stamp: "outpost_xid", since: tick.snapshot)
            let rows = try connection.query(changed).rows.map { try $0.required(0, $0.string) }
            var naiveRows: [String] = []
            var newest = naive
            for row in try connection.query("SELECT globalid, naive_gen FROM race WHERE naive_gen > \(naive)").rows {
                naiveRows.append(try row.required(0, row.string))
                newest = max(newest, try row.required(1, row.int64))
            }
            let next = try GenerationTicks.take(replica: "device", on: connection)
            return (rows, naiveRows, next, newest)
        }
    }

    @Test func concurrentWritersAreNeitherMissedNorSentTwice() throws {
        try TestDatabase.with { database in
            let pool = database.pool
            try pool.withConnection { connection in
                try connection.execute(
                    """
                    CREATE SEQUENCE race_gen;
                    CREATE TABLE race (
                        objectid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                        globalid text NOT NULL UNIQUE,
                        outpost_xid bigint NOT NULL DEFAULT \(GenerationTicks.stamp),
                        naive_gen bigint NOT NULL,
                        shape geometry(Point, 4326));
                    CREATE INDEX race_changes ON race (outpost_xid);
                    """)
            }
            let first = try Self.sync(pool, tick: .beginning, naive: 0)
            #expect(first.rows.isEmpty)
            let committed = Guarded<[String]>([])
            let stop = Guarded(false)
            let syncing = Guarded<(received: [String], naive: [String], syncs: Int)>(([], [], 0))
            // Eight writers and the device, each on a thread of its own.
            _ = try onThreads(9) { index in
                if index == 8 {
                    var (tick, naive) = (first.tick, first.naive)
                    // Three seconds, and at least 200 rows however loaded the machine (at most 60 s).
                    let until = ContinuousClock.now + .seconds(3)
                    let cap = ContinuousClock.now + .seconds(60)
                    defer { stop.withLock { $0 = true } }
                    while ContinuousClock.now < until || (committed.value.count < 200 && ContinuousClock.now < cap) {
                        let answer = try Self.sync(pool, tick: tick, naive: naive)
                        syncing.withLock {
                            $0.received += answer.rows
                            $0.naive += answer.naiveRows
                            $0.syncs += 1
                        }
                        (tick, naive) = (answer.tick, answer.naive)
                    }
                    return
                }
                var count = 0
                while !stop.value {
                    let id = "{\(UUID().uuidString)}"
                    let lingers = Int.random(in: 0..<10) < 3
                    try pool.transaction { connection in
                        // The generation is taken here, as SQLite's counter was; the commit may come later.
                        try connection.query(
                            """
                            INSERT INTO race(globalid, naive_gen, shape)
                            VALUES (\(id), nextval('race_gen'), ST_SetSRID(ST_MakePoint(\(Double(index)), \(Double(count))), 4326))
                            """)
                        if lingers { usleep(UInt32.random(in: 0...3000)) }
                    }
                    committed.withLock { $0.append(id) }
                    count += 1
                }
            }
            // Every writer has committed: one last sync takes what remains.
            let state = syncing.value
            let lastTick = try #require(try pool.query("SELECT max(tick) FROM outpost_ticks").first?.int64(0))
            let lastSnapshot = try #require(try pool.withConnection { try GenerationTicks.snapshot(of: lastTick, on: $0) })
            let lastNaive = try #require(
                try pool.query("SELECT COALESCE(max(naive_gen), 0) FROM race WHERE globalid = ANY(\(PostgresTextArray(state.naive)))").first?.int64(0)
            )
            let last = try Self.sync(pool, tick: GenerationTick(tick: lastTick, snapshot: lastSnapshot), naive: lastNaive)
            let received = state.received + last.rows
            let naiveReceived = state.naive + last.naiveRows

            let all = Set(committed.value)
            let missed = all.subtracting(received).count
            let duplicated = received.count - Set(received).count
            let naiveMissed = all.subtracting(naiveReceived).count
            print(
                "race: \(all.count) rows by 8 writers, \(state.syncs) syncs; ticks missed \(missed), duplicated \(duplicated); max(gen) missed \(naiveMissed)"
            )
            #expect(all.count >= 200, "the writers wrote")
            #expect(missed == 0 && duplicated == 0 && Set(received) == all)
            #expect(naiveMissed > 0, "max(gen) loses rows in the same run: the race happened")
        }
    }

    @Test func migrationsRunOnceEvenStartedTogetherAndANewerDatabaseIsRefused() throws {
        try TestDatabase.with { database in
            let pool = database.pool
            // Already migrated by TestDatabase: nothing left to do, from three threads at once.
            let applied = try onThreads(3) { _ in try PostgresMigrations.migrate(pool) }
            let nothingLeft = applied.allSatisfy { $0.isEmpty }
            #expect(nothingLeft)
            // `outpost migrate --dry-run`: nothing pending, and the last version undone is pending again.
            #expect(try PostgresMigrations.pending(pool).isEmpty)
            let last = try #require(PostgresMigrations.all.last)
            try pool.query("DELETE FROM outpost_schema_migrations WHERE version = \(last.version)")
            #expect(try PostgresMigrations.pending(pool).map(\.version) == [last.version])
            try pool.query("INSERT INTO outpost_schema_migrations(version, name) VALUES (\(last.version), \(last.name))")
            let tick = try pool.transaction(.repeatableRead) { try GenerationTicks.take(on: $0) }
            let stored = try pool.withConnection { try GenerationTicks.snapshot(of: tick.tick, on: $0) }
            #expect(stored == tick.snapshot)
            let unknown = try pool.withConnection { try GenerationTicks.snapshot(of: 999_999, on: $0) }
            #expect(unknown == nil)

            try pool.query("INSERT INTO outpost_schema_migrations(version, name) VALUES (999, 'from the future')")
            #expect(throws: PostgresMigrationError.newerDatabase(database: 999, known: PostgresMigrations.all.count)) {
                _ = try PostgresMigrations.migrate(pool)
            }
            #expect(throws: PostgresMigrationError.self) { try PostgresMigrations.pending(pool) }
        }
    }
}
