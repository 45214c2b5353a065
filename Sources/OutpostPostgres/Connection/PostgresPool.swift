import Foundation

/// Connections to one database, shared by every thread of a process: at most
/// `maximumConnections` open, a caller beyond them waits for one to come back. A connection
/// lost (a server restart, a network cut) is dropped when it comes back and a new one is
/// opened by the next caller, so the pool recovers once PostgreSQL is there again.
public final class PostgresPool: @unchecked Sendable {
    public let location: PostgresLocation
    public let maximumConnections: Int
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var closed = false

    public init(_ location: PostgresLocation, maximumConnections: Int = 10) {
        self.location = location
        self.maximumConnections = max(1, maximumConnections)
    }

    /// Lends a connection to `body`. A connection handed back inside a transaction (its
    /// body threw past a BEGIN) is rolled back first, or dropped if that fails.
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    @discardableResult
    public func query(_ query: PostgresQuery, binaryResults: Bool = false) throws -> PostgresResult {
        try withConnection { try $0.query(query, binaryResults: binaryResults) }
    }

    public func transaction<T>(_ isolation: PostgresIsolation = .readCommitted, _ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { try $0.transaction(isolation, body) }
    }

    /// Closes idle connections now and the others as they come back.
    public func close() {
        condition.lock()
        closed = true
        open -= idle.count
        idle.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private func checkOut() throws -> PostgresConnection {
        condition.lock()
        while true {
            if closed {
                condition.unlock()
                throw PostgresError(kind: .connection, message: "the connection pool is closed")
            }
            if let connection = idle.popLast() {
                guard connection.checkAlive() else {
                    open -= 1
                    continue
                }
                condition.unlock()
                return connection
            }
            if open < maximumConnections { break }
            condition.wait()
        }
        open += 1
        condition.unlock()
        do {
            return try PostgresConnection(location)
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func checkIn(_ connection: PostgresConnection) {
        if connection.isUsable, !connection.isIdle { try? connection.execute("ROLLBACK") }
        let keep = connection.isUsable && connection.isIdle
        condition.lock()
        if keep && !closed { idle.append(connection) } else { open -= 1 }
        condition.signal()
        condition.unlock()
    }
}
