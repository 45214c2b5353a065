import GRDB
import OutpostStorage
import OutpostSync

/// The change feed's SQL pre-filters: an optimisation that leaves unread the rows
/// `SyncRules.download` would answer `.none` for (the bulk of a large table), so a download
/// reads only the changes. The rules still decide every row read. A pre-filter may keep a row
/// the rules then drop; it must never drop a row they would send — `ChangeFeedPrefilterTests`
/// checks that over random records.
enum ChangeFeedPrefilter {
    /// Rows of a layer or attachment table (alias `alias`, with `outpost_created_gen`,
    /// `outpost_gen`, `outpost_replica`) that may be sent to `replicaId` as `pass`: `.add`
    /// reads the rows new to the replica, `.update` the rows it holds (updates and deletes),
    /// its own writes among them. `skipsOwnWrites`: the replica's own writes are never sent
    /// (no echo), so they are not read.
    static func changedRows(
        _ pass: DownloadChange, alias: String, since: Int64, replicaId: String, skipsOwnWrites: Bool
    )
        -> (condition: String, arguments: [DatabaseValue])
    {
        // New to the replica unless it existed at the generation, the replica's own sync
        // created it, or the replica wrote it (SyncRules.download: an echo is an update).
        let creator = creatorColumn(alias: alias)
        let (since, replica) = (since.databaseValue, replicaId.databaseValue)
        if pass == .add {
            return (
                "\(alias).outpost_gen > ? AND \(alias).outpost_created_gen > ? AND \(creator) IS NOT ? AND \(alias).outpost_replica IS NOT ?",
                [since, since, replica, replica]
            )
        }
        let held = "(\(alias).outpost_created_gen <= ? OR \(creator) IS ? OR \(alias).outpost_replica IS ?)"
        if skipsOwnWrites {
            return ("\(alias).outpost_gen > ? AND \(held) AND \(alias).outpost_replica IS NOT ?", [since, since, replica, replica, replica])
        }
        return ("\(alias).outpost_gen > ? AND \(held)", [since, since, replica, replica])
    }

    /// Tombstones (alias `alias`) that may reach the replica as deletes: those since the generation.
    static func tombstones(alias: String, since: Int64) -> (condition: String, arguments: [DatabaseValue]) {
        ("\(alias).generation > ?", [since.databaseValue])
    }

    /// The replica whose sync allocated the row's creation generation (nil: an online edit).
    static func creatorColumn(alias: String) -> String {
        "(SELECT g.replica_id FROM outpost_generations g WHERE g.generation = \(alias).outpost_created_gen)"
    }
}
