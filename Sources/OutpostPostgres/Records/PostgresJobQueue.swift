import OutpostSync

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
    public let pool: PostgresPool
    /// This process, as claims name it.
    public let worker: String

    /// The message a job taken over fails with.
    public static let stoppedMessage = "The server process running the job stopped; submit the request again."

    public init(pool: PostgresPool, worker: String) {
        self.pool = pool
        self.worker = worker
    }

    public func submit(id: String, kind: JobKind, payload: String = "") throws {
        try pool.query("INSERT INTO outpost_jobs(job_id, kind, status, payload) VALUES (\(id), \(kind.rawValue), 'Pending', \(payload))")
    }

    /// The oldest pending job, now this process's until `leaseMilliseconds` from now; nil when none is pending.
    public func claim(leaseMilliseconds: Int64 = JobLeases.leaseMilliseconds) throws -> ClaimedJob? {
        let row = try pool.query(
            """
            UPDATE outpost_jobs SET status = 'InProgress', claimed_by = \(worker), attempts = attempts + 1, updated_at = clock_timestamp(),
                lease_until = clock_timestamp() + \(leaseMilliseconds) * interval '1 millisecond'
            WHERE job_id = (SELECT job_id FROM outpost_jobs WHERE status = 'Pending' ORDER BY submitted_at, job_id FOR UPDATE SKIP LOCKED LIMIT 1)
            RETURNING job_id, kind, payload, attempts
            """
        ).first
        guard let row, let kind = row.string(1).flatMap(JobKind.init(rawValue:)) else { return nil }
        return ClaimedJob(id: try row.required(0, row.string), kind: kind, payload: row.string(2) ?? "", attempts: try row.required(3, row.int))
    }

    /// Extends this process's claim; false when it no longer holds it (taken over).
    public func renew(_ id: String, leaseMilliseconds: Int64 = JobLeases.leaseMilliseconds) throws -> Bool {
        try held(
            """
            UPDATE outpost_jobs SET lease_until = clock_timestamp() + \(leaseMilliseconds) * interval '1 millisecond', updated_at = clock_timestamp()
            WHERE job_id = \(id) AND claimed_by = \(worker) AND status = 'InProgress' AND lease_until > clock_timestamp()
            """)
    }

    /// Finishes a job this process holds; false (and nothing changes) when its claim was lost.
    public func complete(_ id: String, result: String) throws -> Bool {
        try held(
            """
            UPDATE outpost_jobs SET status = 'Completed', result = \(result), lease_until = NULL, updated_at = clock_timestamp()
            WHERE job_id = \(id) AND claimed_by = \(worker) AND status = 'InProgress' AND lease_until > clock_timestamp()
            """)
    }

    public func fail(_ id: String, error: String) throws -> Bool {
        try held(
            """
            UPDATE outpost_jobs SET status = 'Failed', error = \(error), lease_until = NULL, updated_at = clock_timestamp()
            WHERE job_id = \(id) AND claimed_by = \(worker) AND status = 'InProgress' AND lease_until > clock_timestamp()
            """)
    }

    private func held(_ query: PostgresQuery) throws -> Bool { try pool.query(query).affectedRows == 1 }

    /// Takes over every claim whose lease ran out: each job run again or failed
    /// (`JobLeases.onExpiry`). Several processes may sweep at once: each expired job is
    /// decided by exactly one (its row locked, the others skip it).
    @discardableResult
    public func takeOverExpired() throws -> [String: JobLeases.Expiry] {
        try pool.transaction { connection in
            var decided: [String: JobLeases.Expiry] = [:]
            let expired = try connection.query(
                """
                SELECT job_id, kind, attempts FROM outpost_jobs WHERE status = 'InProgress' AND lease_until <= clock_timestamp()
                FOR UPDATE SKIP LOCKED
                """)
            for row in expired.rows {
                let kind = row.string(1).flatMap(JobKind.init(rawValue:))
                decided[try row.required(0, row.string)] =
                    try kind.map { JobLeases.onExpiry(kind: $0, attempts: try row.required(2, row.int)) } ?? .fail
            }
            for (id, expiry) in decided {
                switch expiry {
                case .requeue:
                    try connection.query(
                        """
                        UPDATE outpost_jobs SET status = 'Pending', claimed_by = NULL, lease_until = NULL, updated_at = clock_timestamp()
                        WHERE job_id = \(id)
                        """)
                case .fail:
                    try connection.query(
                        """
                        UPDATE outpost_jobs SET status = 'Failed', error = \(Self.stoppedMessage), lease_until = NULL, updated_at = clock_timestamp()
                        WHERE job_id = \(id)
                        """)
                }
            }
            return decided
        }
    }

    public func job(_ id: String) throws -> QueuedJob? {
        guard let row = try pool.query("SELECT status, attempts, claimed_by, result, error FROM outpost_jobs WHERE job_id = \(id)").first else {
            return nil
        }
        return QueuedJob(
            status: try row.required(0, row.string), attempts: try row.required(1, row.int), claimedBy: row.string(2), result: row.string(3),
            error: row.string(4))
    }
}
