import Foundation
import OutpostPostgres
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// The server's records on PostgreSQL where several processes share them (docs/postgres.md,
/// "Records"). The single-process half is the contract suite's (`RegistryContractTests`).
@Suite struct PostgresRecordsTests {
    static func running(_ id: String, at now: Int64) throws -> JobRecord {
        try JobRecord(
            id: id, serviceName: "Points", kind: .createReplica, replicaId: GlobalID.make(), replicaName: id, submittedAt: now
        ).applying(.started, at: now)
    }

    @Test func aProcessStartingFailsOnlyTheJobsOfProcessesThatAreGone() throws {
        let first = try TestPostgres.makeBackend()
        let location = first.pool.location
        let second = try PostgresBackend(location, maximumConnections: 2)
        try first.jobs.saveJob(try Self.running("first's", at: 1))
        try second.jobs.saveJob(try Self.running("second's", at: 1))
        // A third process starts while both run: it fails nothing.
        let third = try PostgresBackend(location, maximumConnections: 2)
        #expect(try third.jobs.failUnfinishedJobs(now: 2) == 0)
        // The first dies (its connections close): a live process fails only its job, as soon
        // as PostgreSQL has ended the closed sessions and so released their presence lock (a
        // moment later on a loaded machine; the servers' StoppedProcessJobReaper asks every
        // 15 s), not the second's or its own.
        first.close()
        var failed = 0
        let deadline = ContinuousClock.now + .seconds(30)
        while failed == 0, ContinuousClock.now < deadline {
            failed = try second.jobs.failJobsOfStoppedProcesses(now: 3)
            if failed == 0 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(failed == 1)
        #expect(try third.jobs.job(id: "first's")?.status == .failed)
        #expect(try third.jobs.job(id: "second's")?.status == .inProgress)
        #expect(try third.jobs.failUnfinishedJobs(now: 4) == 0)
    }

    @Test func twoProcessesAddingOneNameAddItOnce() throws {
        let location = try TestPostgres.makeBackend().pool.location
        let outcomes = try onThreads(4) { index -> Bool in
            let backend = try PostgresBackend(location, maximumConnections: 1)
            do {
                try backend.users.addUser(index.isMultiple(of: 2) ? "ada" : "ADA", role: .editor, password: "long enough", rounds: 1_000)
                return true
            } catch UserFailure.exists { return false }
        }
        #expect(outcomes.filter { $0 }.count == 1)
    }
}
