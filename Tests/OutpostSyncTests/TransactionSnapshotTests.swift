import OutpostSync
import Testing

/// docs/postgres.md, "Generations": what a stored snapshot sees, row by row, and its text form.
@Suite struct TransactionSnapshotTests {
    /// (snapshot, xid, sees): below xmin committed before; from xmax on started after; in
    /// between, everything but the transactions still running then.
    static let rows: [(String, Int64, Bool)] = [
        ("100:105:101,103", 99, true),
        ("100:105:101,103", 100, true),
        ("100:105:101,103", 101, false),
        ("100:105:101,103", 102, true),
        ("100:105:101,103", 103, false),
        ("100:105:101,103", 104, true),
        ("100:105:101,103", 105, false),
        ("100:105:101,103", 9_000, false),
        ("100:100:", 99, true),
        ("100:100:", 100, false),
    ]

    @Test(arguments: rows.indices) func aSnapshotSeesWhatEndedBeforeIt(_ row: Int) throws {
        let (text, xid, sees) = Self.rows[row]
        let snapshot = try #require(TransactionSnapshot(text: text))
        #expect(snapshot.sees(xid) == sees)
    }

    @Test func theTextFormRoundTripsAndNonsenseIsRefused() {
        let snapshot = TransactionSnapshot(xmin: 7, xmax: 12, inProgress: [9, 8])
        #expect(snapshot.text == "7:12:8,9" && TransactionSnapshot(text: snapshot.text) == snapshot)
        #expect(TransactionSnapshot(text: "5:5:") == TransactionSnapshot(xmin: 5, xmax: 5))
        for bad in ["", "1:2", "1:2:3:4", "a:2:", "3:2:", "1:5:7", "1:5:0", "1:5:2,,3", "-1:2:"] {
            #expect(TransactionSnapshot(text: bad) == nil, "\(bad)")
        }
    }

    /// Every combination of seen and unseen creation and change, each writer, each operation:
    /// the decisions over stamps equal those over counters (seen = below the replica's
    /// generation 10, unseen = above it).
    @Test func stampedRecordsAreDecidedAsCountedOnes() {
        let snapshot = TransactionSnapshot(xmin: 100, xmax: 200, inProgress: [150])
        let seen: Int64 = 120
        let unseen: [Int64] = [150, 250]
        func counted(_ xid: Int64) -> Int64 { snapshot.sees(xid) ? 5 : 15 }
        var checked = 0
        for created in [seen] + unseen {
            for changed in [seen] + unseen {
                for writer in [nil, "R", "other"] {
                    let pairs: [(ServerRecord, ServerRecord)] = [
                        (
                            snapshot.row(objectId: 1, createdXid: created, changedXid: changed, lastWriter: writer),
                            .row(objectId: 1, createdGen: counted(created), changedGen: counted(changed), lastWriter: writer)
                        ),
                        (
                            snapshot.tombstone(objectId: 1, createdXid: created, deletedXid: changed, deletedBy: writer),
                            .tombstone(objectId: 1, createdGen: counted(created), deletedGen: counted(changed), deletedBy: writer)
                        ),
                    ]
                    for (stamped, record) in pairs {
                        for matches in [true, false] {
                            for createdByReplica in [true, false] {
                                #expect(
                                    SyncRules.download(
                                        stamped, matchesFilter: matches, since: TransactionSnapshot.replicaGeneration, replicaId: "R",
                                        createdByReplica: createdByReplica)
                                        == SyncRules.download(
                                            record, matchesFilter: matches, since: 10, replicaId: "R", createdByReplica: createdByReplica))
                                checked += 1
                            }
                        }
                        for operation in [UploadOperation.add, .update, .delete] {
                            #expect(
                                SyncRules.upload(operation, onto: stamped, since: TransactionSnapshot.replicaGeneration, replicaId: "R")
                                    == SyncRules.upload(operation, onto: record, since: 10, replicaId: "R"))
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked == 9 * 3 * 2 * 7)
    }
}
