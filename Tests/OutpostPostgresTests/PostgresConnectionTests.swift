import Foundation
import OutpostPostgres
import OutpostTestSupport
import OutpostWire
import Testing

/// The libpq layer (docs/postgres.md, "Connecting"): values go as parameters and come back
/// whole, refusals carry their SQLSTATE, a failed transaction leaves nothing, and the pool
/// outlives connections the server cut.
@Suite(.serialized) struct PostgresConnectionTests {
    @Test func valuesTravelAsParametersAndComeBackWhole() throws {
        try TestDatabase.with { database in
            let text = "it's \"quoted\"; DROP TABLE x; -- ünïcødé"
            let bytes: [UInt8] = [0, 1, 0x5C, 0x78, 255, 39]
            let row = try #require(
                try database.pool.query(
                    "SELECT \(text)::text, \(bytes)::bytea, \(Int64.max)::bigint, \(0.1 + 0.2)::float8, \(true)::bool, \(String?.none)::text, \(PostgresTextArray(["a\"b", "c\\d"]))::text[]"
                ).first)
            #expect(row.string(0) == text)
            #expect(try row.bytes(1) == bytes)
            #expect(try row.int64(2) == .max)
            #expect(try row.double(3) == 0.1 + 0.2)
            #expect(try row.bool(4) == true)
            #expect(row.isNull(5) && row.string(5) == nil)
            #expect(row.string(6) == #"{"a\"b","c\\d"}"#)
            let binary = try #require(try database.pool.query("SELECT \(bytes)::bytea", binaryResults: true).first)
            #expect(try binary.bytes(0) == bytes)
        }
    }

    /// Short statements from many sessions: a parallel worker's start costs more than it saves.
    @Test func sessionsRunWithoutParallelQuery() throws {
        try TestDatabase.with { database in
            let workers = try database.pool.query("SHOW max_parallel_workers_per_gather").first?.string(0)
            #expect(workers == "0")
        }
    }

    @Test func refusalsCarryTheirSQLStateAndAFailedTransactionLeavesNothing() throws {
        try TestDatabase.with { database in
            let pool = database.pool
            try pool.withConnection { try $0.execute("CREATE TABLE t (k text PRIMARY KEY)") }
            #expect {
                try pool.transaction { connection in
                    try connection.query("INSERT INTO t VALUES (\("a"))")
                    try connection.query("INSERT INTO t VALUES (\("a"))")
                }
            } throws: { error in
                (error as? PostgresError).map { $0.kind == .statement && $0.sqlState == PostgresError.uniqueViolation } ?? false
            }
            let count = try pool.query("SELECT count(*) FROM t").first?.int64(0)
            #expect(count == 0, "the first insert was rolled back with the second")
            #expect {
                try pool.query("SELECT * FROM missing")
            } throws: { ($0 as? PostgresError)?.sqlState == PostgresError.undefinedTable }
        }
    }

    /// A database that cannot be reached answers ArcGIS's 503 (clients retry); a refused
    /// statement is a server fault whose SQL stays in the log.
    @Test func anUnreachableDatabaseIsUnavailableAndARefusalAFault() throws {
        var nowhere = try TestPostgres.server()
        nowhere.port = 1
        #expect {
            try PostgresConnection(nowhere)
        } throws: { ($0 as? PostgresError)?.arcGISError.code == 503 }
        try TestDatabase.with { database in
            #expect {
                try database.pool.query("SELECT * FROM missing")
            } throws: { error in
                let answer = (error as? PostgresError)?.arcGISError
                return answer?.code == 500 && answer?.details.joined().contains("missing") == false
            }
        }
        #expect(PostgresError(kind: .statement, sqlState: "57P01", message: "terminating connection").arcGISError.code == 503)
    }

    @Test func copyInLoadsRowsAndAFailedCopyLoadsNone() throws {
        try TestDatabase.with { database in
            try database.pool.withConnection { connection in
                try connection.execute("CREATE TABLE c (n bigint PRIMARY KEY, label text)")
                try connection.copyIn("COPY c FROM STDIN") { write in
                    for n in 0..<1000 { try write(Array("\(n)\trow \(n)\n".utf8)) }
                }
                #expect(try connection.query("SELECT count(*) FROM c").first?.int64(0) == 1000)
                #expect(throws: PostgresError.self) {
                    try connection.copyIn("COPY c FROM STDIN") { write in
                        try write(Array("5000\tnew\n".utf8))
                        try write(Array("1\tduplicate\n".utf8))
                    }
                }
                #expect(try connection.query("SELECT count(*) FROM c").first?.int64(0) == 1000)
            }
        }
    }

    @Test func aPipelineRunsEveryStatementOrStopsAtTheFirstRefusal() throws {
        try TestDatabase.with { database in
            try database.pool.withConnection { connection in
                try connection.execute("CREATE TABLE p (n bigint PRIMARY KEY, label text)")
                // More statements than one pipeline batch, with parameters of both kinds.
                let inserts = (0..<1000).map { n -> PostgresQuery in "INSERT INTO p VALUES (\(Int64(n)), \("row \(n)"))" }
                try connection.pipeline(inserts)
                #expect(try connection.query("SELECT count(*), sum(n) FROM p").first.map { [try $0.int64(0), try $0.int64(1)] } == [1000, 499_500])
                // A refusal in the second batch: the error is the statement's, and inside a
                // transaction nothing of the pipeline stays.
                let failing = (1000..<1400).map { n -> PostgresQuery in "INSERT INTO p VALUES (\(Int64(n == 1300 ? 5 : n)), 'x')" }
                #expect {
                    try connection.transaction { try $0.pipeline(failing) }
                } throws: { ($0 as? PostgresError)?.sqlState == PostgresError.uniqueViolation }
                #expect(try connection.query("SELECT count(*) FROM p").first?.int64(0) == 1000)
                // The connection is usable afterwards, pipelines included.
                try connection.pipeline(["DELETE FROM p WHERE n >= 500"])
                #expect(try connection.query("SELECT count(*) FROM p").first?.int64(0) == 500)
            }
        }
    }

    @Test func thePoolReplacesConnectionsTheServerCut() throws {
        try TestDatabase.with(maximumConnections: 2) { database in
            let pool = database.pool
            let before = try #require(try pool.query("SELECT pg_backend_pid()").first?.int64(0))
            // Another session ends ours, as a server restart would.
            try PostgresConnection(database.location).query("SELECT pg_terminate_backend(\(before))")
            Thread.sleep(forTimeInterval: 0.1)
            let after = try #require(try pool.query("SELECT pg_backend_pid()").first?.int64(0))
            #expect(after != before)
            // Two at a time: a third caller waits for a connection instead of opening one.
            let pids = try onThreads(6) { _ in
                try pool.transaction { connection in
                    usleep(20_000)
                    return try connection.query("SELECT pg_backend_pid()").first?.int64(0) ?? 0
                }
            }
            #expect(Set(pids).count <= 2)
        }
    }
}
