import Foundation
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// The registry, jobs, users, uploads, result files and maintenance side of the store
/// contract, at store level.
@Suite struct RegistryContractTests {
    @Test(arguments: SyncContractBackend.all)
    func replicasAreRegisteredFoundInAnyGUIDSpellingAndRememberedWhenUnregistered(_ backend: SyncContractBackend) throws {
        let (store, clock) = try backend.fresh()
        let replica = try Contract.createReplica(store, name: "field")
        #expect(replica.creationDate == clock.milliseconds())
        let bare = String(replica.id.dropFirst().dropLast()).lowercased()
        #expect(try store.replicas.replica(service: Contract.service, id: bare)?.id == replica.id)
        #expect(try store.replicas.replicas(service: Contract.service).map(\.name) == ["field"])
        _ = try store.schema.createService(pointLayerService(name: "Other"))
        #expect(try store.replicas.replica(service: "Other", id: replica.id) == nil)
        // Names stay unique while one is being created.
        let held = try store.replicas.reserveReplicaName({ taken in ReplicaName.unique("field", taken: taken) }, service: Contract.service)
        #expect(held != "field")
        store.replicas.releaseReplicaName(held, service: Contract.service)
        #expect(try store.replicas.unregisterReplica(service: Contract.service, id: replica.id))
        #expect(try !store.replicas.unregisterReplica(service: Contract.service, id: replica.id))
        #expect(try store.replicas.allReplicas().isEmpty)
        let facts = try store.replicas.registrationFacts(service: Contract.service, referenceId: bare)
        #expect(facts.unregistered.contains(replica.id) && facts.originId == replica.id)
    }

    @Test(arguments: RecordsContractBackend.all)
    func jobsOutliveTheirProcessAndUnfinishedOnesFailAtStartUp(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let first = try backend.open(clock)
        func job(_ id: String) -> JobRecord {
            JobRecord(
                id: id, serviceName: Contract.service, kind: .createReplica, replicaId: GlobalID.make(), replicaName: id,
                transportType: .url, responseType: .data, submittedAt: clock.milliseconds(), owner: "ada")
        }
        let running = try job("running").applying(.started, at: clock.milliseconds())
            .applying(.progress(JobProgress(done: 3, total: 7)), at: clock.milliseconds())
        let done = try job("done").applying(.started, at: clock.milliseconds())
            .applying(.succeeded(resultFile: "f.json"), at: clock.milliseconds())
        try first.records.jobs.saveJob(running)
        try first.records.jobs.saveJob(done)
        #expect(try first.records.jobs.job(id: "running") == running)
        // While its process serves, a job is never failed as a stopped process's.
        #expect(try first.records.jobs.failJobsOfStoppedProcesses(now: clock.milliseconds()) == 0)
        #expect(try first.records.jobs.job(id: "running") == running)
        clock.advance(milliseconds: 5_000)
        let next = try first.restart()
        #expect(try next.jobs.job(id: "done") == done)
        #expect(try next.jobs.failUnfinishedJobs(now: clock.milliseconds()) == 1)
        let failed = try #require(try next.jobs.job(id: "running"))
        #expect(failed.status == .failed && failed.error != nil && failed.lastUpdatedTime == clock.milliseconds())
        #expect(try next.jobs.failUnfinishedJobs(now: clock.milliseconds()) == 0)
        #expect(try next.jobs.job(id: "done") == done)
        #expect(try next.jobs.job(id: "missing") == nil)
    }

    @Test(arguments: RecordsContractBackend.all)
    func usersSignInAndTokensExpireByTheBackendsClock(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try backend.open(clock).records
        #expect(try !store.users.hasUsers)
        #expect(throws: UserFailure.weakPassword) { try store.users.addUser("ada", role: .editor, password: "short", rounds: 1_000) }
        #expect(throws: UserFailure.invalidName("a b")) { try store.users.addUser("a b", role: .editor, password: "long enough", rounds: 1_000) }
        try store.users.addUser("ada", role: .editor, password: "long enough", rounds: 1_000)
        try store.users.addUser("Bob", role: .admin, password: "long enough", rounds: 1_000)
        #expect(try store.users.users() == [ServerUser(name: "ada", role: .editor), ServerUser(name: "Bob", role: .admin)])
        #expect(try store.users.hasUsers)
        #expect(throws: UserFailure.exists("ADA")) { try store.users.addUser("ADA", role: .admin, password: "long enough", rounds: 1_000) }
        #expect(try store.users.verify(user: "Ada", password: "long enough") == ServerUser(name: "ada", role: .editor))
        #expect(try store.users.verify(user: "ada", password: "wrong one!") == nil)
        #expect(try store.users.verify(user: "nobody", password: "long enough") == nil)
        let user = ServerUser(name: "ada", role: .editor)
        let (token, expires) = try store.users.issueToken(for: user, minutes: 60)
        #expect(expires == clock.milliseconds() + 3_600_000)
        #expect(try store.users.check(token: token) == .valid(user))
        #expect(try store.users.check(token: token + "0") == .unknown)
        clock.advance(milliseconds: 3_600_000)
        #expect(try store.users.check(token: token) == .expired)
        let (second, _) = try store.users.issueToken(for: user, minutes: 60)
        try store.users.removeUser("ada")
        #expect(try store.users.check(token: second) == .unknown)
        #expect(throws: UserFailure.notFound("ada")) { try store.users.removeUser("ada") }
    }

    @Test(arguments: ContractBackend.all)
    func uploadsInPartsCommitInOrderAndBelongToTheirService(_ backend: ContractBackend) throws {
        let (store, clock) = try backend.fresh()
        _ = try store.schema.createService(pointLayerService(name: "Other"))
        let item = try store.uploads.registerUpload(service: Contract.service, name: "notes.txt", description: "two parts", owner: "ada")
        #expect(isValidUploadID(item.itemID) && !item.committed && item.date == clock.milliseconds())
        #expect(try store.uploads.upload(service: Contract.service, itemID: item.itemID).owner == "ada", "an item keeps its owner")
        for (part, text) in [(2, "world"), (1, "hello ")] {
            let file = TestFolders.file("part\(part)")
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            _ = try store.uploads.addUploadPart(service: Contract.service, itemID: item.itemID, partId: part, sourcePath: file)
        }
        #expect(try store.uploads.uploadParts(service: Contract.service, itemID: item.itemID).count == 2)
        let committed = try store.uploads.commitUpload(service: Contract.service, itemID: item.itemID, parts: nil)
        #expect(committed.committed && committed.size == 11)
        #expect(try String(contentsOfFile: try store.uploads.uploadDataFile(item.itemID), encoding: .utf8) == "hello world")
        #expect(throws: (any Error).self) { try store.uploads.upload(service: "Other", itemID: item.itemID) }
        #expect(!isValidUploadID("../../outpost.sqlite"))
        try store.uploads.deleteUpload(service: Contract.service, itemID: item.itemID)
        #expect(throws: (any Error).self) { try store.uploads.upload(service: Contract.service, itemID: item.itemID) }
    }

    @Test(arguments: RecordsContractBackend.all)
    func resultFilesBelongToWhoeverRecordedThemUntilForgotten(_ backend: RecordsContractBackend) throws {
        let store = try backend.open(ManualClock()).records
        #expect(try store.resultFiles.resultFileOwner("unknown.json") == "")
        try store.resultFiles.recordResultFile("a.json", owner: "ada", service: nil)
        #expect(try store.resultFiles.resultFileOwner("a.json") == "ada")
        try store.resultFiles.forgetResultFiles(["a.json"])
        #expect(try store.resultFiles.resultFileOwner("a.json") == "")
        try store.resultFiles.recordResultFile("b.json", owner: "", service: nil)
        try store.resultFiles.recordResultFile("b.json", owner: "grace", service: nil)
        #expect(try store.resultFiles.resultFileOwner("b.json") == "grace")
    }

    @Test(arguments: ContractBackend.all)
    func anEmptyStoreIsHealthyAndCountsNothing(_ backend: ContractBackend) throws {
        let (store, _) = try backend.fresh()
        #expect(store.maintenance.health() == .healthy)
        let counts = try store.maintenance.counts()
        #expect(counts.replicas == 0 && counts.conflicts == 0 && counts.databaseBytes > 0)
    }
}
