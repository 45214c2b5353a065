import OutpostSync
import Testing

private let me = "{AAAAAAAA-0000-4000-8000-000000000001}"
private let other = "{BBBBBBBB-0000-4000-8000-000000000002}"
/// The generation the replica last received.
private let g: Int64 = 10

/// Attachment rows of docs/sync-semantics.md ("Attachments").
@Suite struct AttachmentRulesTests {
    struct UploadCase: CustomTestStringConvertible, Sendable {
        var name: String
        var operation: UploadOperation
        var record: ServerRecord
        var carriesParentAndBytes = true
        var expected: AttachmentUploadAction
        var testDescription: String { name }
    }

    static let uploads: [UploadCase] = [
        UploadCase(name: "add of a new attachment", operation: .add, record: .absent, expected: .insert),
        UploadCase(
            name: "add retried after a lost answer", operation: .add, record: .row(objectId: 7, createdGen: 11, changedGen: 11, lastWriter: me),
            expected: .alreadyApplied(attachmentId: 7)),
        UploadCase(
            name: "add of an attachment GlobalID another writer holds", operation: .add,
            record: .row(objectId: 7, createdGen: 3, changedGen: 11, lastWriter: other), expected: .update(attachmentId: 7)),
        UploadCase(
            name: "add of a deleted attachment", operation: .add, record: .tombstone(objectId: 7, createdGen: 3, deletedGen: 11, deletedBy: other),
            expected: .recreate(previousAttachmentId: 7)),
        UploadCase(
            name: "update of an attachment", operation: .update, record: .row(objectId: 7, createdGen: 3, changedGen: 4, lastWriter: nil),
            expected: .update(attachmentId: 7)),
        UploadCase(name: "update of one the server never had, with parent and bytes", operation: .update, record: .absent, expected: .insert),
        UploadCase(
            name: "update of one the server never had, without them", operation: .update, record: .absent, carriesParentAndBytes: false,
            expected: .missing),
        UploadCase(
            name: "update of a deleted attachment, with parent and bytes", operation: .update,
            record: .tombstone(objectId: 7, createdGen: 3, deletedGen: 11, deletedBy: other), expected: .recreate(previousAttachmentId: 7)),
        UploadCase(
            name: "update of a deleted attachment, without them", operation: .update,
            record: .tombstone(objectId: 7, createdGen: 3, deletedGen: 11, deletedBy: other), carriesParentAndBytes: false, expected: .missing),
        UploadCase(
            name: "delete of an attachment", operation: .delete, record: .row(objectId: 7, createdGen: 3, changedGen: 4, lastWriter: nil),
            carriesParentAndBytes: false, expected: .delete(attachmentId: 7)),
        UploadCase(
            name: "delete of a deleted attachment", operation: .delete,
            record: .tombstone(objectId: 7, createdGen: 3, deletedGen: 11, deletedBy: other),
            carriesParentAndBytes: false, expected: .alreadyApplied(attachmentId: 7)),
        UploadCase(
            name: "delete of an unknown attachment", operation: .delete, record: .absent, carriesParentAndBytes: false,
            expected: .alreadyApplied(attachmentId: nil)),
    ]

    @Test(arguments: uploads)
    func upload(_ c: UploadCase) {
        #expect(SyncRules.uploadAttachment(c.operation, onto: c.record, carriesParentAndBytes: c.carriesParentAndBytes, replicaId: me) == c.expected)
    }

    struct DownloadCase: CustomTestStringConvertible, Sendable {
        var name: String
        var record: ServerRecord
        var parentInFilter = true
        var createdByReplica = false
        var expected: DownloadChange
        var testDescription: String { name }
    }

    static let downloads: [DownloadCase] = [
        DownloadCase(
            name: "added by another writer since", record: .row(objectId: 7, createdGen: 12, changedGen: 12, lastWriter: other), expected: .add),
        DownloadCase(
            name: "updated by another writer", record: .row(objectId: 7, createdGen: 3, changedGen: 12, lastWriter: other), expected: .update),
        DownloadCase(
            name: "created by the replica (an upload-only sync), updated by another",
            record: .row(objectId: 7, createdGen: 12, changedGen: 13, lastWriter: other),
            createdByReplica: true, expected: .update),
        DownloadCase(
            name: "the replica's own write is never echoed", record: .row(objectId: 7, createdGen: 3, changedGen: 12, lastWriter: me), expected: .none
        ),
        DownloadCase(
            name: "its feature is outside the filter: the feature's delete speaks for it",
            record: .row(objectId: 7, createdGen: 3, changedGen: 12, lastWriter: other), parentInFilter: false, expected: .none),
        DownloadCase(
            name: "deleted by another writer", record: .tombstone(objectId: 7, createdGen: 3, deletedGen: 12, deletedBy: other),
            parentInFilter: false, expected: .delete),
        DownloadCase(
            name: "created and deleted since by others", record: .tombstone(objectId: 7, createdGen: 11, deletedGen: 12, deletedBy: other),
            parentInFilter: false, expected: .none),
        DownloadCase(
            name: "created by the replica, deleted by another", record: .tombstone(objectId: 7, createdGen: 11, deletedGen: 12, deletedBy: other),
            parentInFilter: false, createdByReplica: true, expected: .delete),
        DownloadCase(
            name: "unchanged since the generation", record: .row(objectId: 7, createdGen: 3, changedGen: 9, lastWriter: other), expected: .none),
    ]

    @Test(arguments: downloads)
    func download(_ c: DownloadCase) {
        #expect(
            SyncRules.downloadAttachment(
                c.record, parentInFilter: c.parentInFilter, since: g, replicaId: me,
                createdByReplica: c.createdByReplica) == c.expected)
    }

    /// A deleted feature or attachment added again keeps its tombstone's creation generation.
    @Test func aRecreationKeepsTheCreationGenerationOfItsTombstone() {
        #expect(
            SyncRules.recreation(replacing: .tombstone(objectId: 7, createdGen: 3, deletedGen: 11, deletedBy: other))
                == Recreation(createdGeneration: 3, removesTombstone: true))
        #expect(SyncRules.recreation(replacing: .absent) == nil)
        #expect(SyncRules.recreation(replacing: .row(objectId: 7, createdGen: 3, changedGen: 4, lastWriter: nil)) == nil)
    }
}

/// The device's rows of docs/sync-semantics.md ("On the device").
@Suite struct DeviceRulesTests {
    @Test(arguments: [DownloadChange.add, .update, .delete])
    func aServerChangeMeetingAPendingLocalEditWaitsForTheNextSync(_ change: DownloadChange) {
        #expect(SyncRules.applyOnDevice(change, hasPendingLocalChanges: true) == .deferToPendingEdit)
        #expect(SyncRules.applyOnDevice(change, hasPendingLocalChanges: false) == .apply)
    }
}
