/// Reconciling a replica's update with DEFAULT on a versioned service (§9): attribute by
/// attribute, against the values the replica started from.
///
/// The replica changed the fields whose uploaded value differs from its base (the feature at
/// the replica's generation); DEFAULT changed the fields whose current value differs from the
/// same base. The post writes only the replica's changed fields, so fields changed on one
/// side only merge; a field changed on both sides to different values is a conflict, decided
/// for the sync being posted (last in wins) and recorded with all three values. Pure: the
/// store reads the three states and writes what this decides.
public enum VersionReconcile {
    /// The writer recorded for a row a reconcile merged (`merge:<replica id>`): not the
    /// replica's own write, so its next download brings DEFAULT's fields it lacks.
    public static func mergeWriter(_ replicaId: String) -> String { "merge:" + replicaId }

    public struct Outcome: Sendable, Equatable {
        /// The fields to write: those the replica changed (in the edit's order).
        public var write: [String]
        /// Fields both sides changed to different values (the replica's value is written).
        public var conflicts: [String]

        public var merged: Bool { conflicts.isEmpty }
    }

    /// - Parameters:
    ///   - base: the feature's values at the replica's generation; nil when unknown (the
    ///     feature's history does not reach back so far): every uploaded field then counts as
    ///     changed, and any field DEFAULT changed as well conflicts.
    ///   - current: DEFAULT's values now.
    ///   - edit: the uploaded values, in upload order (`(field, value)` pairs).
    public static func reconcile<Value: Equatable>(base: [String: Value]?, current: [String: Value], edit: [(String, Value)]) -> Outcome {
        var write: [String] = []
        var conflicts: [String] = []
        for (field, value) in edit {
            let original = base?[field]
            let replicaChanged = base == nil || original != value
            guard replicaChanged else { continue }
            write.append(field)
            let now = current[field]
            let defaultChanged = base == nil ? now != value : now != original
            if defaultChanged && now != value { conflicts.append(field) }
        }
        return Outcome(write: write, conflicts: conflicts)
    }
}
