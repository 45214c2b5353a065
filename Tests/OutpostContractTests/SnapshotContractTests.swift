import Foundation
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// The snapshot seam (`StateSnapshots`) at store level, on every backend: saved, listed,
/// restored backwards and forwards, deleted; names checked before anything is touched.
@Suite struct SnapshotContractTests {
    @Test(arguments: ContractBackend.all)
    func snapshotsAreSavedListedRestoredBothWaysAndDeleted(_ backend: ContractBackend) throws {
        let (store, clock) = try backend.fresh()
        let one = try store.snapshots.save(try SnapshotName("one"))
        #expect(one.name == "one" && one.created == clock.milliseconds() && one.bytes > 0)
        try store.users.addUser("later", role: .viewer, password: "later-password", rounds: 1000)
        _ = try store.schema.createService(pointLayerService(name: "Later"))
        clock.advance(milliseconds: 1000)
        _ = try store.snapshots.save(try SnapshotName("two"))
        #expect(try store.snapshots.list().map(\.name) == ["one", "two"])

        try store.snapshots.restore(try SnapshotName("one"))
        #expect(try store.users.user(named: "later") == nil)
        #expect(throws: StoreError.self) { try store.service(named: "Later") }
        try store.snapshots.restore(try SnapshotName("two"))
        #expect(try store.users.user(named: "later") != nil)
        #expect(try store.service(named: "Later").layers.count == 1)
        // Its tables, made again on PostgreSQL, take edits as before.
        let added = try store.edits.applyEdits(
            service: "Later", edits: [LayerEdits(layerId: 0, adds: [Contract.point("again")])], options: EditOptions())
        #expect(added.layers[0].addResults[0].success)

        try store.snapshots.delete(try SnapshotName("one"))
        #expect(try store.snapshots.list().map(\.name) == ["two"])
        #expect(throws: SnapshotError.notFound("one")) { try store.snapshots.restore(try SnapshotName("one")) }
        #expect(throws: SnapshotError.notFound("one")) { try store.snapshots.delete(try SnapshotName("one")) }
    }

    @Test func namesAreLettersDigitsUnderscoresAndDashesUpTo64() throws {
        for bad in ["", ".", "..", "a/b", "a b", "a.b", "é", String(repeating: "a", count: 65), "x;drop", "a\u{0}b"] {
            #expect(throws: SnapshotError.invalidName(bad)) { try SnapshotName(bad) }
        }
        for good in ["start", "A-b_9", String(repeating: "a", count: 64)] { #expect(try SnapshotName(good).text == good) }
    }
}
