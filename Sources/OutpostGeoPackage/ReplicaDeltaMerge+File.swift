import Foundation
import GRDB

extension ReplicaDeltaMerge {
    /// Merges the download delta at `deltaPath` into the replica file at `path`, into the
    /// tables the file itself lists, trimming none of its change log (a delta made elsewhere:
    /// a packager's scheduled update). With `maximumBytes` the file may not grow past that
    /// size (SQLite's `max_page_count`): a write that would is refused with `SQLITE_FULL`,
    /// and nothing is merged. A server writing into a file a user gave it sets this.
    /// Throws `ReplicaFile.Failure` for a file that is not a replica, `Failure` for a delta
    /// it cannot take, `DatabaseError` for SQLite's own failures.
    @discardableResult
    public static func merge(deltaAt deltaPath: String, intoFileAt path: String, maximumBytes: Int? = nil, now: Int64) throws -> Outcome {
        guard FileManager.default.fileExists(atPath: path) else { throw ReplicaFile.Failure.notAGeoPackage(path) }
        let queue = try DatabaseQueue(path: path, configuration: ReplicaFile.editingConfiguration(maximumBytes: maximumBytes))
        defer { try? queue.close() }
        return try queue.inDatabase { db in
            let merge = ReplicaDeltaMerge(try ReplicaFile.info(db, path: path))
            return try merge.merge(deltaAt: deltaPath, into: db, now: now)
        }
    }
}
