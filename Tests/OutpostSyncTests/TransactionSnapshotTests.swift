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
}
