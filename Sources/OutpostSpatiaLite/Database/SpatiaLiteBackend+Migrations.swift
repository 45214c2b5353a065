import Foundation
import GRDB
import OutpostStorage
import OutpostWire

extension SpatiaLiteBackend {
    /// Forward-only schema migrations. Never edit a shipped migration: add a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-spatial-metadata") { db in
            // All EPSG definitions, so ST_Transform can resolve any SRID PROJ knows. Argument 0: do not
            // open a transaction of its own (the migration already runs in one).
            let hasMetadata = try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE name = 'spatial_ref_sys'") ?? false
            if !hasMetadata { _ = try Int.fetchOne(db, sql: "SELECT InitSpatialMetadata(0)") }
        }
        migrator.registerMigration("v1-catalog") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outpost_services (
                        name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
                        description TEXT NOT NULL DEFAULT '',
                        is_versioned INTEGER NOT NULL DEFAULT 0,
                        capabilities TEXT NOT NULL,
                        wkid INTEGER NOT NULL,
                        max_record_count INTEGER NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE outpost_layers (
                        service TEXT NOT NULL REFERENCES outpost_services(name) ON DELETE CASCADE COLLATE NOCASE,
                        layer_id INTEGER NOT NULL,
                        name TEXT NOT NULL,
                        kind TEXT NOT NULL CHECK (kind IN ('Feature Layer', 'Table')),
                        description TEXT NOT NULL DEFAULT '',
                        geometry_type TEXT,
                        wkid INTEGER NOT NULL,
                        object_id_field TEXT NOT NULL,
                        global_id_field TEXT NOT NULL,
                        display_field TEXT NOT NULL,
                        has_attachments INTEGER NOT NULL DEFAULT 0,
                        max_record_count INTEGER NOT NULL,
                        table_name TEXT NOT NULL UNIQUE,
                        edit_fields_info TEXT,
                        last_edit_date INTEGER NOT NULL,
                        PRIMARY KEY (service, layer_id)
                    );
                    CREATE TABLE outpost_fields (
                        service TEXT NOT NULL COLLATE NOCASE,
                        layer_id INTEGER NOT NULL,
                        position INTEGER NOT NULL,
                        name TEXT NOT NULL,
                        type TEXT NOT NULL,
                        alias TEXT NOT NULL,
                        length INTEGER,
                        nullable INTEGER NOT NULL,
                        editable INTEGER NOT NULL,
                        default_value TEXT NOT NULL DEFAULT 'null',
                        domain TEXT NOT NULL DEFAULT 'null',
                        PRIMARY KEY (service, layer_id, position),
                        FOREIGN KEY (service, layer_id) REFERENCES outpost_layers(service, layer_id) ON DELETE CASCADE
                    );
                    CREATE TABLE outpost_relationships (
                        service TEXT NOT NULL COLLATE NOCASE,
                        layer_id INTEGER NOT NULL,
                        relationship_id INTEGER NOT NULL,
                        name TEXT NOT NULL,
                        related_table_id INTEGER NOT NULL,
                        cardinality TEXT NOT NULL,
                        role TEXT NOT NULL,
                        key_field TEXT NOT NULL,
                        composite INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (service, layer_id, relationship_id),
                        FOREIGN KEY (service, layer_id) REFERENCES outpost_layers(service, layer_id) ON DELETE CASCADE
                    );
                    """)
        }
        migrator.registerMigration("v2-change-tracking") { db in
            // One counter for the whole store: every committed change is stamped with the
            // generation its transaction allocated, so "changes since G" is one comparison.
            try db.execute(
                sql: """
                    CREATE TABLE outpost_generations (
                        generation INTEGER PRIMARY KEY AUTOINCREMENT,
                        created_at INTEGER NOT NULL,
                        replica_id TEXT
                    );
                    CREATE TABLE outpost_tombstones (
                        service TEXT NOT NULL COLLATE NOCASE,
                        layer_id INTEGER NOT NULL,
                        kind TEXT NOT NULL CHECK (kind IN ('feature', 'attachment')),
                        global_id TEXT NOT NULL,
                        object_id INTEGER NOT NULL,
                        parent_global_id TEXT,
                        created_generation INTEGER NOT NULL,
                        generation INTEGER NOT NULL,
                        replica_id TEXT,
                        PRIMARY KEY (service, layer_id, kind, global_id)
                    );
                    CREATE INDEX outpost_tombstones_generation ON outpost_tombstones(service, layer_id, generation);
                    """)
            for row in try Row.fetchAll(db, sql: "SELECT table_name, has_attachments FROM outpost_layers") {
                let table: String = row["table_name"]
                try SpatiaLiteBackend.addChangeTracking(toTable: table, db: db)
                if row["has_attachments"] as Bool { try SpatiaLiteBackend.addChangeTracking(toTable: "\(table)__attach", db: db) }
            }
        }
        migrator.registerMigration("v3-attachment-files-and-uploads") { db in
            // Attachment bytes live in files named by DATA_PATH (relative to the data folder);
            // rows from before keep their bytes in DATA.
            for row in try Row.fetchAll(db, sql: "SELECT table_name FROM outpost_layers WHERE has_attachments") {
                try SpatiaLiteBackend.ensureColumns(["DATA_PATH TEXT"], table: "\(row["table_name"] as String)__attach", db: db)
            }
            try db.execute(
                sql: """
                    CREATE TABLE outpost_uploads (
                        item_id TEXT NOT NULL PRIMARY KEY,
                        service TEXT NOT NULL COLLATE NOCASE,
                        item_name TEXT NOT NULL,
                        description TEXT NOT NULL DEFAULT '',
                        created_at INTEGER NOT NULL,
                        committed INTEGER NOT NULL,
                        size INTEGER NOT NULL DEFAULT 0
                    );
                    """)
        }
        migrator.registerMigration("v4-lean-spatial-triggers") { db in
            for table in try String.fetchAll(db, sql: "SELECT table_name FROM outpost_layers WHERE geometry_type IS NOT NULL") {
                try SpatiaLiteBackend.installLeanSpatialTriggers(table: table, db: db)
            }
        }
        migrator.registerMigration("v5-replicas-and-jobs") { db in
            // The replica registry (§6) and asynchronous jobs (§7). A replica row is written
            // only once its snapshot is complete, in one transaction with its layers.
            try db.execute(
                sql: """
                    CREATE TABLE outpost_replicas (
                        replica_id TEXT NOT NULL PRIMARY KEY,
                        service TEXT NOT NULL COLLATE NOCASE,
                        name TEXT NOT NULL COLLATE NOCASE,
                        owner TEXT NOT NULL DEFAULT '',
                        sync_model TEXT NOT NULL CHECK (sync_model IN ('perReplica', 'perLayer')),
                        target_type TEXT NOT NULL,
                        sync_direction TEXT NOT NULL,
                        attachments_sync_direction TEXT NOT NULL,
                        return_attachments INTEGER NOT NULL,
                        geometry TEXT,
                        geometry_wkid INTEGER NOT NULL,
                        spatial_reference INTEGER NOT NULL,
                        replica_server_gen INTEGER NOT NULL,
                        creation_date INTEGER NOT NULL,
                        last_sync_date INTEGER,
                        sync_data_options INTEGER NOT NULL DEFAULT 0,
                        UNIQUE (service, name)
                    );
                    CREATE TABLE outpost_replica_layers (
                        replica_id TEXT NOT NULL REFERENCES outpost_replicas(replica_id) ON DELETE CASCADE,
                        layer_id INTEGER NOT NULL,
                        query_option TEXT NOT NULL,
                        use_geometry INTEGER NOT NULL,
                        include_related INTEGER NOT NULL,
                        where_clause TEXT,
                        server_gen INTEGER NOT NULL,
                        PRIMARY KEY (replica_id, layer_id)
                    );
                    CREATE TABLE outpost_jobs (
                        job_id TEXT NOT NULL PRIMARY KEY,
                        service TEXT NOT NULL COLLATE NOCASE,
                        kind TEXT NOT NULL,
                        status TEXT NOT NULL,
                        replica_id TEXT NOT NULL,
                        replica_name TEXT NOT NULL,
                        transport_type TEXT NOT NULL,
                        response_type TEXT NOT NULL,
                        submission_time INTEGER NOT NULL,
                        last_updated_time INTEGER NOT NULL,
                        result_file TEXT,
                        error TEXT
                    );
                    """)
        }
        migrator.registerMigration("v6-sync-conflicts-and-receipts") { db in
            // The conflict log keeps every server value a sync overwrote without having seen
            // it (last in wins, nothing silently lost); it outlives the replica. A receipt is
            // a replica's last applied upload, so a retry of it applies nothing twice.
            try db.execute(
                sql: """
                    CREATE TABLE outpost_conflicts (
                        conflict_id INTEGER PRIMARY KEY AUTOINCREMENT,
                        service TEXT NOT NULL COLLATE NOCASE,
                        replica_id TEXT NOT NULL,
                        layer_id INTEGER NOT NULL,
                        global_id TEXT NOT NULL,
                        object_id INTEGER,
                        upload_operation TEXT NOT NULL CHECK (upload_operation IN ('add', 'update', 'delete')),
                        overwritten_change TEXT NOT NULL CHECK (overwritten_change IN ('update', 'delete')),
                        overwritten_generation INTEGER NOT NULL,
                        overwritten_by TEXT,
                        feature TEXT,
                        generation INTEGER NOT NULL,
                        recorded_at INTEGER NOT NULL
                    );
                    CREATE INDEX outpost_conflicts_replica ON outpost_conflicts(replica_id, conflict_id);
                    CREATE TABLE outpost_sync_receipts (
                        replica_id TEXT NOT NULL PRIMARY KEY,
                        fingerprint BLOB NOT NULL,
                        generation INTEGER NOT NULL,
                        results TEXT NOT NULL,
                        recorded_at INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v7-change-index-with-writer") { db in
            // "Changed since G, not by this replica" is answered from the index alone, so a
            // sync does not read the rows of its own upload back to skip them.
            for row in try Row.fetchAll(db, sql: "SELECT table_name, has_attachments FROM outpost_layers") {
                let table: String = row["table_name"]
                try SpatiaLiteBackend.addChangeTracking(toTable: table, db: db)
                if row["has_attachments"] as Bool { try SpatiaLiteBackend.addChangeTracking(toTable: "\(table)__attach", db: db) }
            }
        }
        migrator.registerMigration("v8-versions-history-and-conflict-fields") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outpost_versions (
                        service TEXT NOT NULL,
                        name TEXT NOT NULL,
                        parent TEXT,
                        replica_id TEXT,
                        access TEXT NOT NULL DEFAULT 'public',
                        description TEXT NOT NULL DEFAULT '',
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (service, name)
                    );
                    CREATE INDEX outpost_versions_replica ON outpost_versions(replica_id);
                    ALTER TABLE outpost_conflicts ADD COLUMN fields TEXT;
                    """)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            for table in try String.fetchAll(
                db,
                sql: """
                    SELECT l.table_name FROM outpost_layers l JOIN outpost_services s ON s.name = l.service WHERE s.is_versioned = 1
                    """)
            {
                try SpatiaLiteBackend.createHistory(forTable: table, layer: nil, db: db)
            }
            for service in try String.fetchAll(db, sql: "SELECT name FROM outpost_services WHERE is_versioned = 1") {
                try SpatiaLiteBackend.createDefaultVersion(service: service, db: db, now: now)
            }
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT r.replica_id, r.service, r.name FROM outpost_replicas r JOIN outpost_services s ON s.name = r.service WHERE s.is_versioned = 1
                    """)
            {
                try SpatiaLiteBackend.createReplicaVersion(
                    service: row["service"], replicaId: row["replica_id"], replicaName: row["name"], db: db, now: now)
            }
        }
        migrator.registerMigration("v9-named-versions") { db in
            try db.execute(
                sql: """
                    ALTER TABLE outpost_versions ADD COLUMN guid TEXT;
                    ALTER TABLE outpost_versions ADD COLUMN base_generation INTEGER NOT NULL DEFAULT 0;
                    """)
            for row in try Row.fetchAll(db, sql: "SELECT service, name FROM outpost_versions") {
                try db.execute(
                    sql: "UPDATE outpost_versions SET guid = ? WHERE service = ? AND name = ?",
                    arguments: [GlobalID.make(), row["service"] as String, row["name"] as String])
            }
            for table in try String.fetchAll(
                db,
                sql: """
                    SELECT l.table_name FROM outpost_layers l JOIN outpost_services s ON s.name = l.service WHERE s.is_versioned = 1
                    """)
            {
                try SpatiaLiteBackend.createVersionRows(forTable: table, db: db)
            }
        }
        migrator.registerMigration("v10-history-by-objectid") { db in
            // Reconcile finds a feature's past by OBJECTID (the row it decided on): the index
            // follows, and stays local where GlobalIDs scatter.
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT l.table_name, l.object_id_field FROM outpost_layers l JOIN outpost_services s ON s.name = l.service WHERE s.is_versioned = 1
                    """)
            {
                let history = "\(row["table_name"] as String)__history"
                try db.execute(sql: "DROP INDEX IF EXISTS \("\(history)_globalid".quotedDatabaseIdentifier)")
                try db.execute(
                    sql: """
                        CREATE INDEX IF NOT EXISTS \("\(history)_objectid".quotedDatabaseIdentifier)
                        ON \(history.quotedDatabaseIdentifier)(\((row["object_id_field"] as String).quotedDatabaseIdentifier), outpost_gen)
                        """)
            }
        }
        migrator.registerMigration("v11-users-and-tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outpost_users (
                        name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
                        role TEXT NOT NULL CHECK (role IN ('viewer', 'editor', 'admin')),
                        salt BLOB NOT NULL,
                        hash BLOB NOT NULL,
                        rounds INTEGER NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE outpost_tokens (
                        token_hash BLOB NOT NULL PRIMARY KEY,
                        user TEXT NOT NULL,
                        expires_at INTEGER NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    """)
        }
        registerOwnershipMigrations(&migrator)
        registerOAuthMigrations(&migrator)
        return migrator
    }
}
