import GRDB

extension ReplicaFile {
    /// How a replica file is opened to be changed (a device's edits, a delta merged): the
    /// GeoPackage functions its triggers call, room for a large transaction's pages (the
    /// default 2 MB spills to disk) and statement journals in memory (every insert with
    /// triggers opens one). With `maximumBytes` the file may not grow past that size
    /// (`max_page_count`: a write that would fails with `SQLITE_FULL`).
    public static func editingConfiguration(maximumBytes: Int? = nil) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            GeoPackageSchema.registerFunctions(db)
            try db.execute(sql: "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY")
            if let maximumBytes {
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                try db.execute(sql: "PRAGMA max_page_count = \(max(1, maximumBytes / pageSize))")
            }
        }
        return configuration
    }
}
