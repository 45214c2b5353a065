import OutpostStorage
import OutpostSync
import OutpostTestSupport
import Testing

/// What refuses a service's deletion at the store (docs/portal.md, "Deleting a service"), on
/// both backends: its running feature jobs, not a tile service's of the same name; an import
/// undoing its own half-made service is not refused; of two deletions at once one deletes.
@Suite struct ServiceDeletionStoreTests {
    @Test(arguments: DemoBackend.all)
    func aRunningFeatureJobRefusesTheDeletionAndAnImportsUndoIsNot(_ backend: DemoBackend) throws {
        let store = try backend.make()
        try store.schema.createService(pointLayerService(name: "Wells"))
        // A tile service's export under the same name is not the feature service's job.
        try store.jobs.saveJob(JobRecord(id: "tiles", serviceName: "Wells", kind: .exportTiles, replicaId: "", replicaName: "", submittedAt: 1))
        try store.jobs.saveJob(
            JobRecord(id: "replica", serviceName: "Wells", kind: .createReplica, replicaId: "{R}", replicaName: "r", submittedAt: 1))
        #expect(throws: StoreError.serviceInUse(service: "Wells", replicas: 0, jobs: 1)) { try store.schema.deleteService(named: "Wells") }
        #expect(try store.catalog().service(named: "Wells") != nil)
        try store.schema.deleteService(named: "Wells", refusingWhileInUse: false)
        #expect(try store.catalog().service(named: "Wells") == nil)
        #expect(try store.jobs.job(id: "replica") == nil, "the feature job went with its service")
        #expect(try store.jobs.job(id: "tiles") != nil, "the tile job stayed")
    }

    @Test(arguments: DemoBackend.all)
    func ofTwoDeletionsAtOnceOneDeletesAndTheOtherFindsNoService(_ backend: DemoBackend) throws {
        let store = try backend.make()
        for round in 0..<3 {
            let name = "Twice\(round)"
            try store.schema.createService(pointLayerService(name: name))
            let outcomes = try onThreads(2) { _ -> Bool in
                do {
                    try store.schema.deleteService(named: name)
                    return true
                } catch StoreError.serviceNotFound {
                    return false
                }
            }
            #expect(outcomes.filter { $0 }.count == 1, "round \(round): \(outcomes)")
            #expect(try store.catalog().service(named: name) == nil)
        }
    }
}
