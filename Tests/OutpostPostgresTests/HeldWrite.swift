import Foundation
import OutpostPostgres
import OutpostTestSupport
import Testing

/// A write held open inside its transaction, so that a test interleaves it with another the
/// same way every run: a trigger after each `event` on `table` waits on an advisory lock the
/// test's `control` connection holds until `release()`.
struct HeldWrite: Sendable {
    let location: PostgresLocation
    let key: Int
    /// The test's own connection (it holds the lock).
    let control: PostgresConnection

    init(_ event: String, on table: String, key: Int, location: PostgresLocation) throws {
        self.location = location
        self.key = key
        control = try PostgresConnection(location)
        try control.execute(
            """
            CREATE FUNCTION outpost_test_hold() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN PERFORM pg_advisory_xact_lock(\(key)); RETURN NULL; END $$;
            CREATE TRIGGER outpost_test_hold AFTER \(event) ON \(PostgresQuery.quoted(identifier: table))
                FOR EACH ROW EXECUTE FUNCTION outpost_test_hold();
            SELECT pg_advisory_lock(\(key));
            """)
    }

    /// Waits until a backend waits for a lock of `type` (`advisory`: the held write;
    /// `transactionid`: a writer waiting for the held write's transaction).
    func waitFor(_ type: String) throws {
        let deadline = ContinuousClock.now + .seconds(30)
        let watcher = try PostgresConnection(location)
        while try watcher.query("SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = \(type)").first?.int(0) == 0 {
            try #require(ContinuousClock.now < deadline, "a backend waits for a \(type) lock")
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Lets the held write go on.
    func release() throws {
        _ = try control.query("SELECT pg_advisory_unlock(\(key))")
    }
}
