import GRDB
import OutpostStorage

extension SpatiaLiteBackend {
    /// Migrations of the hardening step (owners of jobs and result files, the registration
    /// rules). Registered after the others, forward only.
    static func registerOwnershipMigrations(_ migrator: inout DatabaseMigrator) {
        defer { registerPortalMigrations(&migrator) }
        migrator.registerMigration("v12-owners-and-registration-lineage") { db in
            // A job and a result file are visible to their owner and admins; rows of jobs made
            // before this migration have no owner ('' = the administrators').
            try db.execute(
                sql: """
                    ALTER TABLE outpost_jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
                    CREATE TABLE outpost_result_file_owners (
                        name TEXT NOT NULL PRIMARY KEY,
                        owner TEXT NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE outpost_replica_origins (
                        replica_id TEXT NOT NULL PRIMARY KEY,
                        origin_id TEXT NOT NULL
                    );
                    CREATE TABLE outpost_unregistered_replicas (
                        replica_id TEXT NOT NULL PRIMARY KEY,
                        service TEXT NOT NULL COLLATE NOCASE,
                        unregistered_at INTEGER NOT NULL
                    );
                    """)
        }
    }
}
