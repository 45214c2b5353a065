import OutpostStorage
import OutpostSync
import OutpostWire

/// Job records on PostgreSQL (`JobStore`), each tagged with the process that saved it.
///
/// Several processes share the table, so "start-up fails what a dead process left" becomes
/// "fails the unfinished jobs of processes no longer present" (`PostgresPresence`): a process
/// starting never fails a job another live process is running.
public struct PostgresJobStore: JobStore {
    let pool: PostgresPool
    let presence: PostgresPresence

    public func saveJob(_ job: JobRecord) throws {
        let process = Int64(try presence.key())
        try pool.query(
            """
            INSERT INTO outpost_job_records(job_id, service, finished, process, record)
            VALUES (\(job.id), \(job.serviceName), \(job.status.isTerminal), \(process), \(job.stored.jsonText))
            ON CONFLICT (job_id) DO UPDATE SET service = excluded.service, finished = excluded.finished,
                process = excluded.process, record = excluded.record
            """)
    }

    public func job(id: String) throws -> JobRecord? {
        guard let text = try pool.query("SELECT record FROM outpost_job_records WHERE job_id = \(id)").first?.string(0) else { return nil }
        return (try? JSONParser.parse(text)).flatMap(JobRecord.init(stored:))
    }

    /// At start-up as while serving: only the jobs of processes that are gone.
    @discardableResult
    public func failUnfinishedJobs(now: Int64) throws -> Int { try failJobsOfStoppedProcesses(now: now) }

    /// Fails the unfinished jobs whose process is gone (its presence lock free); returns how many.
    @discardableResult
    public func failJobsOfStoppedProcesses(now: Int64) throws -> Int {
        try pool.transaction { connection in
            let orphans = try connection.query(
                """
                SELECT record FROM outpost_job_records r WHERE NOT finished AND NOT \(unescaped: PostgresPresence.isAlive("r.process"))
                FOR UPDATE OF r SKIP LOCKED
                """
            ).rows.compactMap { row in row.string(0).flatMap { try? JSONParser.parse($0) }.flatMap(JobRecord.init(stored:)) }
            for job in orphans {
                guard let failed = try? job.applying(.serverRestarted, at: now) else { continue }
                try connection.query(
                    "UPDATE outpost_job_records SET finished = true, record = \(failed.stored.jsonText) WHERE job_id = \(job.id)")
            }
            return orphans.count
        }
    }
}
