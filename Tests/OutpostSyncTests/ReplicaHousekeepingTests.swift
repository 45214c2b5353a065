import OutpostSync
import OutpostWire
import Testing

@Suite struct ReplicaHousekeepingTests {
    func replica(_ model: SyncModel, gens: [Int64], replicaGen: Int64 = 0, created: Int64 = 0, synced: Int64? = nil) -> ReplicaDefinition {
        ReplicaDefinition(
            id: "{R}", name: "r", serviceName: "Demo", syncModel: model,
            layers: gens.enumerated().map { ReplicaLayer(layerId: $0.offset, serverGen: $0.element) },
            replicaServerGen: replicaGen, creationDate: created, lastSyncDate: synced)
    }

    @Test func theOldestGenerationNeededIsTheLowestAnyRegisteredReplicaSyncsFrom() {
        #expect(ReplicaHousekeeping.oldestGenerationNeeded(by: [], current: 40) == 40)
        #expect(
            ReplicaHousekeeping.oldestGenerationNeeded(
                by: [replica(.perLayer, gens: [12, 9]), replica(.perReplica, gens: [0], replicaGen: 20)], current: 40) == 9)
        #expect(ReplicaHousekeeping.oldestGenerationNeeded(by: [replica(.perReplica, gens: [0, 0], replicaGen: 15)], current: 40) == 15)
        // An export that is not registered needs nothing.
        #expect(ReplicaHousekeeping.oldestGenerationNeeded(by: [replica(.none, gens: [1])], current: 40) == 40)
    }

    @Test func idleMeansNoSyncAndNoCreationWithinTheDays() {
        let day: Int64 = 86_400_000
        let now = 100 * day
        let old = replica(.perLayer, gens: [1], created: 10 * day, synced: 20 * day)
        let recentlySynced = replica(.perLayer, gens: [1], created: 10 * day, synced: 99 * day)
        let recentlyCreated = replica(.perLayer, gens: [1], created: 98 * day)
        #expect(ReplicaHousekeeping.idle([old, recentlySynced, recentlyCreated], days: 30, now: now) == [old])
        #expect(ReplicaHousekeeping.idle([old, recentlySynced, recentlyCreated], days: 1.5, now: now).count == 2)
    }
}
