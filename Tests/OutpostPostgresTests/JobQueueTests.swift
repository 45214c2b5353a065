import Foundation
import OutpostPostgres
import OutpostSync
import OutpostTestSupport
import Testing

/// Jobs across processes (docs/postgres.md, "Jobs"): claims with `SKIP LOCKED` never give one
/// job to two workers; a claim is a lease only its live holder can finish; an expired claim
/// is taken over by the rules of `JobLeases`.
@Suite(.serialized) struct JobQueueTests {
    @Test func eightWorkersClaimEveryJobExactlyOnce() throws {
        try TestDatabase.with { database in
            let submitter = PostgresJobQueue(pool: database.pool, worker: "submitter")
            let ids = (0..<1000).map { String(format: "job-%04d", $0) }
            for id in ids { try submitter.submit(id: id, kind: .createReplica, payload: "{\"n\":\"\(id)\"}") }
            let pool = database.pool
            let claimed = try onThreads(8) { worker in
                let queue = PostgresJobQueue(pool: pool, worker: "process-\(worker)")
                var mine: [String] = []
                while let job = try queue.claim() {
                    #expect(job.attempts == 1 && job.payload == "{\"n\":\"\(job.id)\"}")
                    let finished = try queue.complete(job.id, result: "done by \(worker)")
                    #expect(finished)
                    mine.append(job.id)
                }
                return mine
            }
            let all = claimed.flatMap { $0 }
            print("jobs: \(all.count) claimed by 8 workers: \(claimed.map(\.count))")
            #expect(all.count == ids.count && Set(all) == Set(ids), "each job once")
            #expect(claimed.filter { !$0.isEmpty }.count > 1, "the workers shared the queue")
            let first = try submitter.job("job-0000")
            #expect(first?.status == "Completed")
        }
    }

    @Test func anExpiredClaimIsTakenOverAndItsFormerHolderCanNoLongerFinishIt() throws {
        try TestDatabase.with { database in
            let dying = PostgresJobQueue(pool: database.pool, worker: "dying")
            let alive = PostgresJobQueue(pool: database.pool, worker: "alive")
            try dying.submit(id: "export", kind: .createReplica)
            try dying.submit(id: "sync", kind: .synchronizeReplica)
            try dying.submit(id: "renewed", kind: .exportTiles)
            let lease: Int64 = 300
            for _ in 0..<3 { _ = try dying.claim(leaseMilliseconds: lease) }
            let nothing = try alive.claim()
            #expect(nothing == nil, "nothing pending: all three are claimed")
            let early = try alive.takeOverExpired()
            #expect(early.isEmpty, "live claims are not taken over")

            // "dying" keeps renewing one job only, then stops.
            let until = ContinuousClock.now + .milliseconds(500)
            while ContinuousClock.now < until {
                let renewed = try dying.renew("renewed", leaseMilliseconds: lease)
                #expect(renewed)
                Thread.sleep(forTimeInterval: 0.05)
            }
            let decided = try alive.takeOverExpired()
            #expect(decided == ["export": .requeue, "sync": .fail], "an export runs again, a sync that may have applied fails")
            let late = try dying.complete("export", result: "late")
            #expect(late == false, "a lost claim finishes nothing")
            let renewedLost = try dying.renew("sync")
            #expect(renewedLost == false)
            let failed = try #require(try alive.job("sync"))
            #expect(failed.status == "Failed" && failed.error == PostgresJobQueue.stoppedMessage)

            let again = try #require(try alive.claim(leaseMilliseconds: lease))
            #expect(again.id == "export" && again.attempts == 2)
            Thread.sleep(forTimeInterval: Double(lease + 50) / 1000)
            let second = try alive.takeOverExpired()
            #expect(second["export"] == .fail, "a second expiry: failed, not run a third time")
            #expect(second["renewed"] == .requeue, "the renewals stopped, so that claim ran out too")
            let export = try alive.job("export")
            #expect(export?.status == "Failed")
        }
    }
}
