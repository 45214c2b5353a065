import Logging
import OutpostSync
import PostgresNIO

/// A job as its worker holds it.
public struct ClaimedJob: Sendable, Equatable {
    public var id: String
    public var kind: JobKind
    public var payload: String
    /// Runs so far, this one included.
    public var attempts: Int
}

/// Where a job is, as the queue keeps it.
public struct QueuedJob: Sendable, Equatable {
    public var status: String
    public var attempts: Int
    public var claimedBy: String?
    public var result: String?
    public var error: String?
}

/// Asynchronous jobs shared by several server processes (docs/postgres.md, "Jobs";
/// scale-out.md §4.5): a process claims the oldest pending job with `FOR UPDATE SKIP LOCKED`
/// (claimers never wait for each other and never take the same job), holds it for a lease it
/// renews while it works, and only the holder of a live claim may finish it. Claims whose
/// lease ran out are taken over by `JobLeases.onExpiry`: run again or failed.
public struct PostgresJobQueue: Sendable {
    public let client: PostgresClient
    /// This process, as claims name it.
    public let worker: String
    public let logger: Logger

    /// The message a job taken over fails with.
    public static let stoppedMessage = "The server process running the job stopped; submit the request again."

    public init(client: PostgresClient, worker: String, logger: Logger) {
        self.client = client
        self.worker = worker
        self.logger = logger
    }

    public func submit(id: String, kind: JobKind, payload: String = "") async throws {
        try await client.query(
            "INSERT INTO outpost_jobs(job_id, kind, status, payload) VALUES (\(id), \(kind.rawValue), 'Pending', \(payload))", logger: logger)
    }

    /// The oldest pending job, now this process's until `leaseMilliseconds` from now; nil when none is pending.
    public func claim(leaseMilliseconds: Int64 = JobLeases.leaseMilliseconds) async throws -> ClaimedJob? {
        let rows = try await client.query(
            """
            UPDATE outpost_jobs SET status = 'InProgress', claimed_by = \(worker), attempts = attempts + 1, updated_at = clock_timestamp(),
                lease_until = clock_timestamp() + \(leaseMilliseconds) * interval '1 millisecond'
            WHERE job_id = (SELECT job_id FROM outpost_jobs WHERE status = 'Pending' ORDER BY submitted_at, job_id FOR UPDATE SKIP LOCKED LIMIT 1)
            RETURNING job_id, kind, payload, attempts
            """, logger: logger)
        for try await (id, kind, payload, attempts) in rows.decode((String, String, String, Int).self) {
            guard let kind = JobKind(rawValue: kind) else { continue }
            return ClaimedJob(id: id, kind: kind, payload: payload, attempts: attempts)
        }
        return nil
    }

    /// Extends this process's claim; false when it no longer holds it (taken over).
    public func renew(_ id: String, leaseMilliseconds: Int64 = JobLeases.leaseMilliseconds) async throws -> Bool {
        try await held(
            """
            UPDATE outpost_jobs SET lease_until = clock_timestamp() + \(leaseMilliseconds) * interval '1 millisecond', updated_at = clock_timestamp()
            WHERE job_id = \(id) AND claimed_by = \(worker) AND status = 'InProgress' AND lease_until > clock_timestamp() RETURNING job_id
            """)
    }

    /// Finishes a job this process holds; false (and nothing changes) when its claim was lost.
    public func complete(_ id: String, result: String) async throws -> Bool {
        try await held(
            """
            UPDATE outpost_jobs SET status = 'Completed', result = \(result), lease_until = NULL, updated_at = clock_timestamp()
            WHERE job_id = \(id) AND claimed_by = \(worker) AND status = 'InProgress' AND lease_until > clock_timestamp() RETURNING job_id
            """)
    }

    public func fail(_ id: String, error: String) async throws -> Bool {
        try await held(
            """
            UPDATE outpost_jobs SET status = 'Failed', error = \(error), lease_until = NULL, updated_at = clock_timestamp()
            WHERE job_id = \(id) AND claimed_by = \(worker) AND status = 'InProgress' AND lease_until > clock_timestamp() RETURNING job_id
            """)
    }

    private func held(_ query: PostgresQuery) async throws -> Bool {
        for try await _ in try await client.query(query, logger: logger).decode(String.self) { return true }
        return false
    }

    /// Takes over every claim whose lease ran out: each job run again or failed
    /// (`JobLeases.onExpiry`). Several processes may sweep at once: each expired job is
    /// decided by exactly one (its row locked, the others skip it).
    @discardableResult
    public func takeOverExpired() async throws -> [String: JobLeases.Expiry] {
        try await client.withTransaction(logger: logger) { connection in
            var decided: [String: JobLeases.Expiry] = [:]
            let expired = try await connection.query(
                """
                SELECT job_id, kind, attempts FROM outpost_jobs WHERE status = 'InProgress' AND lease_until <= clock_timestamp()
                FOR UPDATE SKIP LOCKED
                """, logger: logger)
            for try await (id, kind, attempts) in expired.decode((String, String, Int).self) {
                decided[id] = JobKind(rawValue: kind).map { JobLeases.onExpiry(kind: $0, attempts: attempts) } ?? .fail
            }
            for (id, expiry) in decided {
                switch expiry {
                case .requeue:
                    try await connection.query(
                        """
                        UPDATE outpost_jobs SET status = 'Pending', claimed_by = NULL, lease_until = NULL, updated_at = clock_timestamp()
                        WHERE job_id = \(id)
                        """, logger: logger)
                case .fail:
                    try await connection.query(
                        """
                        UPDATE outpost_jobs SET status = 'Failed', error = \(Self.stoppedMessage), lease_until = NULL, updated_at = clock_timestamp()
                        WHERE job_id = \(id)
                        """, logger: logger)
                }
            }
            return decided
        }
    }

    public func job(_ id: String) async throws -> QueuedJob? {
        let rows = try await client.query(
            "SELECT status, attempts, claimed_by, result, error FROM outpost_jobs WHERE job_id = \(id)", logger: logger)
        for try await (status, attempts, claimedBy, result, error) in rows.decode((String, Int, String?, String?, String?).self) {
            return QueuedJob(status: status, attempts: attempts, claimedBy: claimedBy, result: result, error: error)
        }
        return nil
    }
}
