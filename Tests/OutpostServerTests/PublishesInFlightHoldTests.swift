import OutpostSync
import OutpostTestSupport
import Testing

@testable import OutpostServer

/// A change taking a file item's file away and a publish claiming that item exclude each other
/// under one lock (docs/portal.md, "Publishing"): the change's check and its write are one step
/// to a publish, and a publish's claim to a change.
@Suite struct PublishesInFlightHoldTests {
    private func publish(_ id: String, item: String, name: String) -> JobRecord {
        JobRecord(id: id, serviceName: name, kind: .publish, replicaId: "", replicaName: item, submittedAt: 100)
    }

    @Test func aHeldItemCannotBeClaimedUntilEveryHoldIsReleased() throws {
        let store = try makeTemporaryStore()
        let inFlight = PublishesInFlight()
        #expect(try inFlight.hold(item: "file", jobs: store.jobs) == nil)
        #expect(try inFlight.hold(item: "file", jobs: store.jobs) == nil)
        let claim = { try inFlight.claim(jobId: "j1", itemId: "file", name: "Parcels", isTaken: { false }, jobs: store.jobs) }
        #expect(try claim() == .itemChanging)
        inFlight.release(item: "file")
        #expect(try claim() == .itemChanging, "one change still holds it")
        inFlight.release(item: "file")
        #expect(try claim() == .claimed)
        // Another item is never held by this one's changes.
        #expect(try inFlight.claim(jobId: "j2", itemId: "other", name: "Roads", isTaken: { false }, jobs: store.jobs) == .claimed)
    }

    @Test func aRunningPublishRefusesTheHoldAndItsEndAllowsIt() throws {
        let store = try makeTemporaryStore()
        let inFlight = PublishesInFlight()
        let job = publish("j1", item: "file", name: "Parcels")
        #expect(try inFlight.claim(jobId: job.id, itemId: "file", name: "Parcels", isTaken: { false }, jobs: store.jobs) == .claimed)
        try store.jobs.saveJob(job)
        #expect(try inFlight.hold(item: "file", jobs: store.jobs) == "j1")
        #expect(try inFlight.claim(jobId: "j2", itemId: "other", name: "PARCELS", isTaken: { false }, jobs: store.jobs) == .nameTaken)
        try store.jobs.saveJob(try job.applying(.started, at: 101).applying(.failed(.missingParameter("x")), at: 102))
        #expect(try inFlight.hold(item: "file", jobs: store.jobs) == nil, "an ended publish holds nothing")
        inFlight.release(item: "file")
        #expect(try inFlight.claim(jobId: "j3", itemId: "file", name: "Parcels", isTaken: { false }, jobs: store.jobs) == .claimed)
        #expect(try inFlight.claim(jobId: "j4", itemId: "other", name: "Roads", isTaken: { true }, jobs: store.jobs) == .nameTaken)
    }
}
