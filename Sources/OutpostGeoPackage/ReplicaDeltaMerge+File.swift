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
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // The file's triggers call the GeoPackage functions.
            GeoPackageSchema.registerFunctions(db)
            // Room for a large transaction's pages, and statement journals in memory (every
            // insert with triggers opens one).
            try db.execute(sql: "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY")
            if let maximumBytes {
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                try db.execute(sql: "PRAGMA max_page_count = \(max(1, maximumBytes / pageSize))")
            }
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.inDatabase { db in
            let merge = ReplicaDeltaMerge(try ReplicaFile.info(db, path: path))
            return try merge.merge(deltaAt: deltaPath, into: db, now: now)
        }
    }
}
