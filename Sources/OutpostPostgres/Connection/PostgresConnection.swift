import CLibPQ
import Foundation

/// How a transaction sees concurrent commits.
public enum PostgresIsolation: String, Sendable {
    case readCommitted = "READ COMMITTED"
    /// One snapshot for the whole transaction: downloads and exports (docs/postgres.md).
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}

/// One connection to PostgreSQL through libpq. Blocking, like a GRDB connection: the server
/// calls it from NIO's thread pool, never from an event loop. Used by one thread at a time
/// (libpq's rule); `PostgresPool` hands connections out that way.
public final class PostgresConnection: @unchecked Sendable {
    let handle: OpaquePointer

    public init(_ location: PostgresLocation) throws {
        var parameters: [(String, String)] = [
            ("host", location.host), ("port", String(location.port)), ("user", location.username), ("dbname", location.database),
            ("sslmode", location.tls.rawValue), ("connect_timeout", "10"), ("client_encoding", "UTF8"),
            // Outpost's statements are short and many sessions run them at once: starting a
            // parallel worker (about 10 ms measured here) costs more than it could save, and
            // a large table's statistics tip the planner into it for a 1,000-row envelope query.
            ("options", "-c max_parallel_workers_per_gather=0"),
        ]
        if let password = location.password { parameters.append(("password", password)) }
        if let name = location.applicationName { parameters.append(("application_name", name)) }
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer { for pointer in keywords + values { free(pointer) } }
        let connection = (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keys in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { vals in
                PQconnectdbParams(keys.baseAddress, vals.baseAddress, 0)
            }
        }
        guard let connection else { throw PostgresError(kind: .connection, message: "out of memory connecting") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(
                kind: .connection, message: "cannot connect to \(location.redactedDescription): " + message.trimmingTrailingNewlines)
        }
        handle = connection
        // Outpost reads notices nowhere; libpq would print them on stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// False once the connection is lost: the pool then drops it.
    public var isUsable: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether an idle connection can be reused. An idle connection is sent nothing (Outpost's
    /// pooled connections do not LISTEN), so anything to read means the server ended the
    /// session (a restart, `pg_terminate_backend`) and closed the socket: found here, without
    /// waiting, rather than by the next statement.
    public func checkAlive() -> Bool {
        guard isUsable else { return false }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 0
    }

    /// Outside any transaction (what the pool checks before reusing it).
    public var isIdle: Bool { PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Runs one statement with its parameters (the extended protocol: one statement only).
    @discardableResult
    public func query(_ query: PostgresQuery, binaryResults: Bool = false) throws -> PostgresResult {
        let result = query.withParameters { count, values, lengths, formats in
            PQexecParams(handle, query.sql, count, nil, values, lengths, formats, binaryResults ? 1 : 0)
        }
        return try checked(result)
    }

    /// Calls `body` with each row of `query`, read `batch` rows at a time through a cursor so
    /// memory stays flat however many rows there are. Inside a transaction only.
    public func forEachRow(_ query: PostgresQuery, batch: Int = 4096, binaryResults: Bool = false, _ body: (PostgresRow) throws -> Void) throws {
        let name = "outpost_rows"
        try self.query(
            PostgresQuery(unsafeSQL: "DECLARE \(name) \(binaryResults ? "BINARY " : "")NO SCROLL CURSOR FOR " + query.sql, binds: query.binds))
        while true {
            let page = try self.query(PostgresQuery(unsafeSQL: "FETCH \(batch) FROM \(name)"), binaryResults: binaryResults)
            for row in page.rows { try body(row) }
            if page.rowCount < batch { break }
        }
        try execute("CLOSE \(name)")
    }

    /// Runs statements without parameters (the simple protocol: several may be separated by `;`).
    public func execute(_ sql: String) throws {
        _ = try checked(PQexec(handle, sql))
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    /// `started`: the caller has begun it already (`begin(_:then:)`).
    public func transaction<T>(
        _ isolation: PostgresIsolation = .readCommitted, started: Bool = false, _ body: (PostgresConnection) throws -> T
    ) throws -> T {
        if !started { try execute("BEGIN ISOLATION LEVEL " + isolation.rawValue) }
        let value: T
        do {
            value = try body(self)
        } catch {
            if isUsable { try? execute("ROLLBACK") }
            throw error
        }
        // The body may have committed itself, with its last statements (`commit(after:)`).
        if !isIdle { try execute("COMMIT") }
        return value
    }

    /// Starts a transaction and runs `sql` (no parameters) in the same round trip; its answer.
    public func begin(_ isolation: PostgresIsolation, then sql: String) throws -> PostgresResult {
        try checked(PQexec(handle, "BEGIN ISOLATION LEVEL \(isolation.rawValue); \(sql)"))
    }

    /// Runs `query`, then COMMIT, in one round trip (a pipeline); the query's answer.
    public func commit(after query: PostgresQuery) throws -> PostgresResult {
        try pipeline([query, "COMMIT"])[0]
    }

    /// `COPY … FROM STDIN`: `produce` hands each chunk of COPY data (text or binary, as the
    /// statement says) to the writer it is given.
    public func copyIn(_ sql: String, _ produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws {
        let started = PQexec(handle, sql)
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            _ = try checked(started)
            return
        }
        PQclear(started)
        var failure: Error?
        do {
            try produce { chunk in
                let sent = chunk.withUnsafeBytes { PQputCopyData(handle, $0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(chunk.count)) }
                guard sent == 1 else { throw PostgresError(result: nil, connection: handle) }
            }
        } catch { failure = error }
        guard PQputCopyEnd(handle, failure == nil ? nil : "aborted by Outpost") == 1 else {
            throw PostgresError(result: nil, connection: handle)
        }
        var refused: Error?
        while let result = PQgetResult(handle) {
            do { _ = try checked(result) } catch { refused = refused ?? error }
        }
        if let error = failure ?? refused { throw error }
    }

    func checked(_ result: OpaquePointer?) throws -> PostgresResult {
        guard let result else { throw PostgresError(result: nil, connection: handle) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return PostgresResult(result)
        default:
            let error = PostgresError(result: result, connection: handle)
            PQclear(result)
            throw error
        }
    }
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var text = self
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }
}
