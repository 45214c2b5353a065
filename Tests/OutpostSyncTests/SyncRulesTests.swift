import OutpostSync
import Testing

private let me = "{AAAAAAAA-0000-4000-8000-000000000001}"
private let other = "{BBBBBBBB-0000-4000-8000-000000000002}"
/// The generation the replica last received.
private let g: Int64 = 10

/// Download rows of docs/sync-semantics.md: (case, server record, matches filter now, expected).
@Suite struct DownloadRulesTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var record: ServerRecord
        var matches: Bool
        var expected: DownloadChange
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "unchanged since the replica's generation", record: .row(objectId: 1, createdGen: 3, changedGen: 9, lastWriter: nil), matches: true,
            expected: .none),
        Case(
            name: "added on the server after it", record: .row(objectId: 1, createdGen: 12, changedGen: 12, lastWriter: nil), matches: true,
            expected: .add),
        Case(
            name: "added outside the filter", record: .row(objectId: 1, createdGen: 12, changedGen: 12, lastWriter: nil), matches: false,
            expected: .none),
        Case(
            name: "updated on the server", record: .row(objectId: 1, createdGen: 3, changedGen: 11, lastWriter: other), matches: true,
            expected: .update),
        Case(
            name: "updated and moved out of the filter", record: .row(objectId: 1, createdGen: 3, changedGen: 11, lastWriter: nil), matches: false,
            expected: .delete),
        Case(
            name: "updated into the filter (an upsert on the client)", record: .row(objectId: 1, createdGen: 3, changedGen: 11, lastWriter: nil),
            matches: true, expected: .update),
        Case(
            name: "the replica's own upload is not echoed", record: .row(objectId: 1, createdGen: 11, changedGen: 11, lastWriter: me), matches: true,
            expected: .none),
        Case(
            name: "deleted on the server", record: .tombstone(objectId: 1, createdGen: 3, deletedGen: 11, deletedBy: nil), matches: false,
            expected: .delete),
        Case(
            name: "deleted before the replica's generation", record: .tombstone(objectId: 1, createdGen: 3, deletedGen: 8, deletedBy: nil),
            matches: false, expected: .none),
        Case(
            name: "added and deleted since: never reached the replica",
            record: .tombstone(objectId: 1, createdGen: 11, deletedGen: 12, deletedBy: other), matches: false, expected: .none),
        Case(
            name: "deleted by the replica's own upload", record: .tombstone(objectId: 1, createdGen: 3, deletedGen: 11, deletedBy: me),
            matches: false, expected: .none),
        Case(name: "unknown GlobalID", record: .absent, matches: false, expected: .none),
    ]

    @Test(arguments: cases)
    func download(_ c: Case) {
        #expect(SyncRules.download(c.record, matchesFilter: c.matches, since: g, replicaId: me) == c.expected)
    }

    /// Layers whose server writes fields (editor tracking) echo the replica's own changes as
    /// updates, so the device gets the values the server set; never outside the filter.
    @Test func ownWritesEchoAsUpdatesWhereTheServerWritesFields() {
        let own = ServerRecord.row(objectId: 1, createdGen: 11, changedGen: 11, lastWriter: me)
        #expect(SyncRules.download(own, matchesFilter: true, since: g, replicaId: me, echoesOwnWrites: true) == .update)
        #expect(SyncRules.download(own, matchesFilter: false, since: g, replicaId: me, echoesOwnWrites: true) == .none)
        let old = ServerRecord.row(objectId: 1, createdGen: 3, changedGen: 9, lastWriter: me)
        #expect(SyncRules.download(old, matchesFilter: true, since: g, replicaId: me, echoesOwnWrites: true) == .none)
    }
}

/// Upload rows of docs/sync-semantics.md: last in wins, and what it overwrites is flagged.
@Suite struct UploadRulesTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var operation: UploadOperation
        var record: ServerRecord
        var expected: UploadDecision
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "add of a new feature", operation: .add, record: .absent, expected: UploadDecision(.insert)),
        Case(
            name: "add retried after a lost answer", operation: .add, record: .row(objectId: 7, createdGen: 11, changedGen: 11, lastWriter: me),
            expected: UploadDecision(.alreadyApplied(objectId: 7))),
        Case(
            name: "add colliding with another writer's GlobalID", operation: .add,
            record: .row(objectId: 7, createdGen: 11, changedGen: 12, lastWriter: other),
            expected: UploadDecision(.update(objectId: 7), overwritesUnseenChange: true)),
        Case(
            name: "add retried after the replica deleted it", operation: .add,
            record: .tombstone(objectId: 7, createdGen: 11, deletedGen: 12, deletedBy: me),
            expected: UploadDecision(.alreadyApplied(objectId: nil))),
        Case(
            name: "add of a GlobalID deleted by someone else", operation: .add,
            record: .tombstone(objectId: 7, createdGen: 11, deletedGen: 12, deletedBy: other),
            expected: UploadDecision(.resurrect(previousObjectId: 7), overwritesUnseenChange: true)),
        Case(
            name: "update of a feature nobody else changed", operation: .update,
            record: .row(objectId: 3, createdGen: 2, changedGen: 9, lastWriter: nil),
            expected: UploadDecision(.update(objectId: 3))),
        Case(
            name: "update of a feature updated on the server (last in wins)", operation: .update,
            record: .row(objectId: 3, createdGen: 2, changedGen: 11, lastWriter: other),
            expected: UploadDecision(.update(objectId: 3), overwritesUnseenChange: true)),
        Case(
            name: "update retried after a lost answer", operation: .update, record: .row(objectId: 3, createdGen: 2, changedGen: 11, lastWriter: me),
            expected: UploadDecision(.update(objectId: 3))),
        Case(
            name: "update of a feature deleted on the server", operation: .update,
            record: .tombstone(objectId: 3, createdGen: 2, deletedGen: 11, deletedBy: other),
            expected: UploadDecision(.resurrect(previousObjectId: 3), overwritesUnseenChange: true)),
        Case(
            name: "update of a feature the replica deleted (a stale retry)", operation: .update,
            record: .tombstone(objectId: 3, createdGen: 2, deletedGen: 11, deletedBy: me), expected: UploadDecision(.alreadyApplied(objectId: nil))),
        Case(name: "update of a feature the server never had", operation: .update, record: .absent, expected: UploadDecision(.insert)),
        Case(
            name: "delete of an unchanged feature", operation: .delete, record: .row(objectId: 4, createdGen: 2, changedGen: 5, lastWriter: nil),
            expected: UploadDecision(.delete(objectId: 4))),
        Case(
            name: "delete of a feature updated on the server (last in wins)", operation: .delete,
            record: .row(objectId: 4, createdGen: 2, changedGen: 12, lastWriter: other),
            expected: UploadDecision(.delete(objectId: 4), overwritesUnseenChange: true)),
        Case(
            name: "delete of an already deleted feature", operation: .delete,
            record: .tombstone(objectId: 4, createdGen: 2, deletedGen: 11, deletedBy: other),
            expected: UploadDecision(.alreadyApplied(objectId: nil))),
        Case(name: "delete of an unknown GlobalID", operation: .delete, record: .absent, expected: UploadDecision(.alreadyApplied(objectId: nil))),
    ]

    @Test(arguments: cases)
    func upload(_ c: Case) {
        #expect(SyncRules.upload(c.operation, onto: c.record, since: g, replicaId: me) == c.expected)
    }
}

@Suite struct LocalChangeNettingTests {
    @Test(
        arguments: [
            ([LocalOperation.insert], NetLocalChange?.some(.add)),
            ([.insert, .update, .update], .add),
            ([.insert, .update, .delete], nil),
            ([.update], .update),
            ([.update, .update], .update),
            ([.update, .delete], .delete),
            ([.delete], .delete),
            ([], nil),
        ] as [([LocalOperation], NetLocalChange?)])
    func nets(_ operations: [LocalOperation], _ expected: NetLocalChange?) {
        #expect(SyncRules.net(operations) == expected)
    }
}

/// A feature the replica created itself after its generation (an upload-only sync keeps the
/// generation it sent) is one it holds: a delete or a move out of its filter must reach it.
/// Found by the convergence test under faults (test_convergence.py, seed 1).
@Suite struct OwnCreationsAfterTheGenerationTests {
    @Test func aDeleteOfAFeatureTheReplicaCreatedReachesIt() {
        let deleted = ServerRecord.tombstone(objectId: 9, createdGen: 12, deletedGen: 14, deletedBy: "other")
        #expect(SyncRules.download(deleted, matchesFilter: false, since: 10, replicaId: "me") == .none)
        #expect(SyncRules.download(deleted, matchesFilter: false, since: 10, replicaId: "me", createdByReplica: true) == .delete)
        let movedOut = ServerRecord.row(objectId: 9, createdGen: 12, changedGen: 14, lastWriter: "other")
        #expect(SyncRules.download(movedOut, matchesFilter: false, since: 10, replicaId: "me") == .none)
        #expect(SyncRules.download(movedOut, matchesFilter: false, since: 10, replicaId: "me", createdByReplica: true) == .delete)
        // Changed by another writer and still selected: an update of what it holds, not an add.
        #expect(SyncRules.download(movedOut, matchesFilter: true, since: 10, replicaId: "me") == .add)
        #expect(SyncRules.download(movedOut, matchesFilter: true, since: 10, replicaId: "me", createdByReplica: true) == .update)
    }
}
