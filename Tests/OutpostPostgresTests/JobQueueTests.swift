import Foundation
import OutpostPostgres
import OutpostSync
import PostgresNIO
import Testing

/// Jobs across processes (docs/postgres.md, "Jobs"): claims with `SKIP LOCKED` never give one
/// job to two workers; a claim is a lease only its live holder can finish; an expired claim
/// is taken over by the rules of `JobLeases`.
@Suite(.serialized) struct JobQueueTests {
    static let logger = TestDatabase.logger

    @Test func eightWorkersClaimEveryJobExactlyOnce() async throws {
        try await TestDatabase.with { database in
            let submitter = PostgresJobQueue(client: database.client, worker: "submitter", logger: Self.logger)
            let ids = (0..<1000).map { String(format: "job-%04d", $0) }
            for id in ids { try await submitter.submit(id: id, kind: .createReplica, payload: "{\"n\":\"\(id)\"}") }
            let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        let queue = PostgresJobQueue(client: database.client, worker: "process-\(worker)", logger: Self.logger)
                        var mine: [String] = []
                        while let job = try await queue.claim() {
                            #expect(job.attempts == 1 && job.payload == "{\"n\":\"\(job.id)\"}")
                            #expect(try await queue.complete(job.id, result: "done by \(worker)"))
                            mine.append(job.id)
                        }
                        return mine
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let all = claimed.flatMap { $0 }
            print("jobs: \(all.count) claimed by 8 workers: \(claimed.map(\.count))")
            #expect(all.count == ids.count && Set(all) == Set(ids), "each job once")
            #expect(claimed.filter { !$0.isEmpty }.count > 1, "the workers shared the queue")
            #expect(try await submitter.job("job-0000")?.status == "Completed")
        }
    }

    @Test func anExpiredClaimIsTakenOverAndItsFormerHolderCanNoLongerFinishIt() async throws {
        try await TestDatabase.with { database in
            let dying = PostgresJobQueue(client: database.client, worker: "dying", logger: Self.logger)
            let alive = PostgresJobQueue(client: database.client, worker: "alive", logger: Self.logger)
            try await dying.submit(id: "export", kind: .createReplica)
            try await dying.submit(id: "sync", kind: .synchronizeReplica)
            try await dying.submit(id: "renewed", kind: .exportTiles)
            let lease: Int64 = 300
            for _ in 0..<3 { _ = try await dying.claim(leaseMilliseconds: lease) }
            #expect(try await alive.claim() == nil, "nothing pending: all three are claimed")
            #expect(try await alive.takeOverExpired().isEmpty, "live claims are not taken over")

            // "dying" keeps renewing one job only, then stops.
            let until = ContinuousClock.now + .milliseconds(500)
            while ContinuousClock.now < until {
                #expect(try await dying.renew("renewed", leaseMilliseconds: lease))
                try await Task.sleep(for: .milliseconds(50))
            }
            let decided = try await alive.takeOverExpired()
            #expect(decided == ["export": .requeue, "sync": .fail], "an export runs again, a sync that may have applied fails")
            #expect(try await dying.complete("export", result: "late") == false, "a lost claim finishes nothing")
            #expect(try await dying.renew("sync") == false)
            let failed = try #require(try await alive.job("sync"))
            #expect(failed.status == "Failed" && failed.error == PostgresJobQueue.stoppedMessage)

            let again = try #require(try await alive.claim(leaseMilliseconds: lease))
            #expect(again.id == "export" && again.attempts == 2)
            try await Task.sleep(for: .milliseconds(Int(lease) + 50))
            let second = try await alive.takeOverExpired()
            #expect(second["export"] == .fail, "a second expiry: failed, not run a third time")
            #expect(second["renewed"] == .requeue, "the renewals stopped, so that claim ran out too")
            #expect(try await alive.job("export")?.status == "Failed")
        }
    }
}
