import OutpostSync
import Testing

/// The rows of "Versioned data: reconcile" in docs/sync-semantics.md, one case each.
@Suite struct VersionReconcileTests {
    let base = ["owner": "Ada", "area": "100", "use": "farm"]

    @Test func differentFieldsChangedOnBothSidesMergeWithoutConflict() {
        let current = ["owner": "Ada", "area": "120", "use": "farm"]  // DEFAULT changed area
        let outcome = VersionReconcile.reconcile(base: base, current: current, edit: [("owner", "Bea"), ("area", "100"), ("use", "farm")])
        #expect(outcome.write == ["owner"])  // the replica's unchanged area is not written back
        #expect(outcome.conflicts.isEmpty && outcome.merged)
    }

    @Test func theSameFieldChangedOnBothSidesIsAConflictTheReplicaWins() {
        let current = ["owner": "Cy", "area": "100", "use": "farm"]
        let outcome = VersionReconcile.reconcile(base: base, current: current, edit: [("owner", "Bea")])
        #expect(outcome.write == ["owner"] && outcome.conflicts == ["owner"])
    }

    @Test func bothSidesMakingTheSameChangeIsNoConflict() {
        let current = ["owner": "Bea", "area": "100", "use": "farm"]
        let outcome = VersionReconcile.reconcile(base: base, current: current, edit: [("owner", "Bea")])
        #expect(outcome.write == ["owner"] && outcome.conflicts.isEmpty)
    }

    @Test func fieldsTheReplicaDidNotChangeAreNeverWritten() {
        let outcome = VersionReconcile.reconcile(base: base, current: base, edit: base.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        #expect(outcome.write.isEmpty && outcome.conflicts.isEmpty)
    }

    @Test func anUnknownBaseCountsEveryUploadedFieldAsChanged() {
        let current = ["owner": "Cy", "area": "100"]
        let outcome = VersionReconcile.reconcile(base: nil, current: current, edit: [("owner", "Bea"), ("area", "100")])
        #expect(outcome.write == ["owner", "area"])
        #expect(outcome.conflicts == ["owner"])  // DEFAULT differs and nobody can say who changed it: recorded
    }
}
