import Foundation
import OutpostPostgres
import OutpostSync

/// Databases on the test cluster `scripts/test.sh` starts (`OUTPOST_TEST_POSTGRES`): one per
/// call, dropped when the test process ends. Without the cluster the call throws, saying how
/// to start one: the PostgreSQL cases are part of the suite, not optional.
public enum TestPostgres {
    public struct Missing: Error, CustomStringConvertible {
        public var description: String {
            "no test PostgreSQL: run scripts/test.sh, or scripts/postgres.sh start DIR PORT and set OUTPOST_TEST_POSTGRES"
        }
    }

    private static let made = Guarded<[String]>([])
    private static let cleanUp: Void = { atexit { TestPostgres.dropAll() } }()

    /// The admin URL's location.
    public static func server() throws -> PostgresLocation {
        guard let url = ProcessInfo.processInfo.environment["OUTPOST_TEST_POSTGRES"] else { throw Missing() }
        return try PostgresLocation(url)
    }

    /// A new empty database.
    public static func makeDatabase(label: String = "c") throws -> PostgresLocation {
        _ = cleanUp
        let admin = try server()
        var location = admin
        location.database = "outpost_\(label)_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try PostgresConnection(admin).execute("CREATE DATABASE \(location.database)")
        made.withLock { $0.append(location.database) }
        return location
    }

    /// A migrated backend on a new database.
    /// A backend on a database of its own; its files in `dataDirectory` (a new folder by default).
    public static func makeBackend(clock: any WallClock = SystemClock(), dataDirectory: String? = nil) throws -> PostgresBackend {
        try PostgresBackend(try makeDatabase(), dataDirectory: dataDirectory, maximumConnections: 4, clock: clock)
    }

    static func dropAll() {
        guard let admin = try? server(), let connection = try? PostgresConnection(admin) else { return }
        for name in made.value { try? connection.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)") }
    }
}

/// Runs `body` on `count` threads of their own at once (blocking database calls: not on the
/// cooperative pool, whose two threads here would run them two at a time) and returns each
/// thread's answer in order; the first error is rethrown after all have finished.
public func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
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

/// A value shared between threads.
public final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    public init(_ value: Value) { stored = value }
    public var value: Value { lock.withLock { stored } }
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T { try lock.withLock { try body(&stored) } }
}
