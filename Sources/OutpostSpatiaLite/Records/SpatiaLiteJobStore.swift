import Foundation
import GRDB
import OutpostStorage
import OutpostSync
import OutpostWire

/// Asynchronous jobs, persisted so a restart can tell what happened to them.
public struct SpatiaLiteJobStore: JobStore, StoreRepository {
    public let database: StoreDatabase

    public func saveJob(_ job: JobRecord) throws {
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO outpost_jobs(job_id, service, kind, status, replica_id, replica_name, transport_type,
                        response_type, submission_time, last_updated_time, result_file, error, owner, progress_done, progress_total, output)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    job.id, job.serviceName, job.kind.rawValue, job.status.rawValue, job.replicaId, job.replicaName,
                    job.transportType.rawValue, job.responseType.rawValue, job.submissionTime, job.lastUpdatedTime,
                    job.resultFile, job.storedErrorText, job.owner, job.progress?.done, job.progress?.total, job.output?.jsonText,
                ])
        }
    }

    public func job(id: String) throws -> JobRecord? {
        try pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM outpost_jobs WHERE job_id = ?", arguments: [id]) else { return nil }
            var job = JobRecord(
                id: row["job_id"], serviceName: row["service"], kind: JobKind(rawValue: row["kind"]) ?? .createReplica,
                replicaId: row["replica_id"], replicaName: row["replica_name"],
                transportType: TransportType(lenient: row["transport_type"]) ?? .url,
                responseType: ReplicaResponseType(rawValue: row["response_type"]) ?? .data,
                submittedAt: row["submission_time"], owner: row["owner"])
            job.status = ServerJobStatus(rawValue: row["status"]) ?? .failed
            job.lastUpdatedTime = row["last_updated_time"]
            job.resultFile = row["result_file"]
            if let done: Int = row["progress_done"], let total: Int = row["progress_total"] { job.progress = JobProgress(done: done, total: total) }
            job.output = (row["output"] as String?).flatMap { try? JSONParser.parse($0) }
            job.error = JobRecord.storedError(row["error"])
            return job
        }
    }

    /// None: one process serves a data folder, and its restart fails what it left (`failUnfinishedJobs`).
    public func failJobsOfStoppedProcesses(now: Int64) throws -> Int { 0 }

    /// Fails the jobs a previous run left unfinished (their worker is gone); returns how many.
    @discardableResult
    public func failUnfinishedJobs(now: Int64) throws -> Int {
        let unfinished = try pool.read { db in
            try String.fetchAll(db, sql: "SELECT job_id FROM outpost_jobs WHERE status NOT IN ('Completed', 'CompletedWithErrors', 'Failed')")
        }
        for id in unfinished {
            guard let job = try job(id: id), let failed = try? job.applying(.serverRestarted, at: now) else { continue }
            try saveJob(failed)
        }
        return unfinished.count
    }
}
