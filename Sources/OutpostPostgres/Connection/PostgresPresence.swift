import Foundation

/// That this process is alive, as other processes can tell: a session advisory lock held on a
/// connection of its own. PostgreSQL releases it when the process dies or its connection is
/// lost, so "the jobs of a process that is gone" is exact, with no lease to tune.
public final class PostgresPresence: @unchecked Sendable {
    /// The advisory lock class of presence locks (`pg_locks.classid`).
    static let lockClass: Int32 = 0x4F50_5354
    private let location: PostgresLocation
    private let lock = NSLock()
    private var held: (connection: PostgresConnection, key: Int32)?

    init(_ location: PostgresLocation) { self.location = location }

    /// This process's key, taking the lock first if it is not held (again, after a lost connection).
    public func key() throws -> Int32 {
        try lock.withLock {
            if let held, held.connection.checkAlive() { return held.key }
            let connection = try PostgresConnection(location)
            while true {
                let key = Int32.random(in: 1...Int32.max)
                if try connection.query("SELECT pg_try_advisory_lock(\(Self.lockClass), \(key))").first?.bool(0) == true {
                    held = (connection, key)
                    return key
                }
            }
        }
    }

    /// Lets go of the lock, as a process that stops does.
    public func release() { lock.withLock { held = nil } }

    /// SQL true when the process of the `process` column expression holds its presence lock.
    static func isAlive(_ process: String) -> String {
        """
        EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.classid::bigint = \(lockClass)
            AND l.objid::bigint = \(process) AND l.objsubid = 2 AND l.granted
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
        """
    }
}
