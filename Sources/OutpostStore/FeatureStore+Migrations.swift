import Foundation
import GRDB
import OutpostStorage
import OutpostWire

extension FeatureStore {
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
            try db.execute(sql: """
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
            try db.execute(sql: """
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
                try FeatureStore.addChangeTracking(toTable: table, db: db)
                if row["has_attachments"] as Bool { try FeatureStore.addChangeTracking(toTable: "\(table)__attach", db: db) }
            }
        }
        migrator.registerMigration("v3-attachment-files-and-uploads") { db in
            // Attachment bytes live in files named by DATA_PATH (relative to the data folder);
            // rows from before keep their bytes in DATA.
            for row in try Row.fetchAll(db, sql: "SELECT table_name FROM outpost_layers WHERE has_attachments") {
                try FeatureStore.ensureColumns(["DATA_PATH TEXT"], table: "\(row["table_name"] as String)__attach", db: db)
            }
            try db.execute(sql: """
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
                try FeatureStore.installLeanSpatialTriggers(table: table, db: db)
            }
        }
        migrator.registerMigration("v5-replicas-and-jobs") { db in
            // The replica registry (§6) and asynchronous jobs (§7). A replica row is written
            // only once its snapshot is complete, in one transaction with its layers.
            try db.execute(sql: """
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
            try db.execute(sql: """
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
                try FeatureStore.addChangeTracking(toTable: table, db: db)
                if row["has_attachments"] as Bool { try FeatureStore.addChangeTracking(toTable: "\(table)__attach", db: db) }
            }
        }
        migrator.registerMigration("v8-versions-history-and-conflict-fields") { db in
            try db.execute(sql: """
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
            for table in try String.fetchAll(db, sql: """
                SELECT l.table_name FROM outpost_layers l JOIN outpost_services s ON s.name = l.service WHERE s.is_versioned = 1
                """) {
                try FeatureStore.createHistory(forTable: table, layer: nil, db: db)
            }
            for service in try String.fetchAll(db, sql: "SELECT name FROM outpost_services WHERE is_versioned = 1") {
                try FeatureStore.createDefaultVersion(service: service, db: db, now: now)
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT r.replica_id, r.service, r.name FROM outpost_replicas r JOIN outpost_services s ON s.name = r.service WHERE s.is_versioned = 1
                """) {
                try FeatureStore.createReplicaVersion(service: row["service"], replicaId: row["replica_id"], replicaName: row["name"], db: db, now: now)
            }
        }
        migrator.registerMigration("v9-named-versions") { db in
            try db.execute(sql: """
                ALTER TABLE outpost_versions ADD COLUMN guid TEXT;
                ALTER TABLE outpost_versions ADD COLUMN base_generation INTEGER NOT NULL DEFAULT 0;
                """)
            for row in try Row.fetchAll(db, sql: "SELECT service, name FROM outpost_versions") {
                try db.execute(sql: "UPDATE outpost_versions SET guid = ? WHERE service = ? AND name = ?",
                               arguments: [GlobalID.make(), row["service"] as String, row["name"] as String])
            }
            for table in try String.fetchAll(db, sql: """
                SELECT l.table_name FROM outpost_layers l JOIN outpost_services s ON s.name = l.service WHERE s.is_versioned = 1
                """) {
                try FeatureStore.createVersionRows(forTable: table, db: db)
            }
        }
        migrator.registerMigration("v10-history-by-objectid") { db in
            // Reconcile finds a feature's past by OBJECTID (the row it decided on): the index
            // follows, and stays local where GlobalIDs scatter.
            for row in try Row.fetchAll(db, sql: """
                SELECT l.table_name, l.object_id_field FROM outpost_layers l JOIN outpost_services s ON s.name = l.service WHERE s.is_versioned = 1
                """) {
                let history = "\(row["table_name"] as String)__history"
                try db.execute(sql: "DROP INDEX IF EXISTS \("\(history)_globalid".quotedDatabaseIdentifier)")
                try db.execute(sql: """
                    CREATE INDEX IF NOT EXISTS \("\(history)_objectid".quotedDatabaseIdentifier)
                    ON \(history.quotedDatabaseIdentifier)(\((row["object_id_field"] as String).quotedDatabaseIdentifier), outpost_gen)
                    """)
            }
        }
        migrator.registerMigration("v11-users-and-tokens") { db in
            try db.execute(sql: """
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
        return migrator
    }
}

extension FeatureStore {
    /// `<table>__version_rows`: the layer's columns plus the version and a deleted flag.
    static func createVersionRows(forTable table: String, db: Database) throws {
        let rows = "\(table)__version_rows"
        guard try !db.tableExists(rows) else { return }
        let globalIdField = try String.fetchOne(db, sql: "SELECT global_id_field FROM outpost_layers WHERE table_name = ?", arguments: [table]) ?? "GlobalID"
        try db.execute(sql: "CREATE TABLE \(rows.quotedDatabaseIdentifier) AS SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE 0")
        try db.execute(sql: "ALTER TABLE \(rows.quotedDatabaseIdentifier) ADD COLUMN outpost_version TEXT NOT NULL DEFAULT ''")
        try db.execute(sql: "ALTER TABLE \(rows.quotedDatabaseIdentifier) ADD COLUMN outpost_deleted INTEGER NOT NULL DEFAULT 0")
        try db.execute(sql: """
            CREATE UNIQUE INDEX \("\(rows)_version".quotedDatabaseIdentifier) ON \(rows.quotedDatabaseIdentifier)(outpost_version, \(globalIdField.quotedDatabaseIdentifier))
            """)
    }

    /// The version every versioned service has; replicas' versions branch from it.
    public static let defaultVersionName = "sde.DEFAULT"

    /// `<table>__history`: the layer's columns plus `outpost_valid_to`, indexed by OBJECTID.
    static func createHistory(forTable table: String, layer: LayerDefinition?, db: Database) throws {
        let history = "\(table)__history"
        guard try !db.tableExists(history) else { return }
        try db.execute(sql: "CREATE TABLE \(history.quotedDatabaseIdentifier) AS SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE 0")
        try db.execute(sql: "ALTER TABLE \(history.quotedDatabaseIdentifier) ADD COLUMN outpost_valid_to INTEGER NOT NULL DEFAULT 0")
        let objectIdField = try layer?.objectIdField
            ?? String.fetchOne(db, sql: "SELECT object_id_field FROM outpost_layers WHERE table_name = ?", arguments: [table]) ?? "OBJECTID"
        try db.execute(sql: """
            CREATE INDEX \("\(history)_objectid".quotedDatabaseIdentifier) ON \(history.quotedDatabaseIdentifier)(\(objectIdField.quotedDatabaseIdentifier), outpost_gen)
            """)
    }

    static func createDefaultVersion(service: String, db: Database, now: Int64) throws {
        try db.execute(sql: """
            INSERT OR IGNORE INTO outpost_versions(service, name, parent, replica_id, description, created_at)
            VALUES (?, ?, NULL, NULL, 'The published state of the data', ?)
            """, arguments: [service, defaultVersionName, now])
        if try db.columns(in: "outpost_versions").contains(where: { $0.name == "guid" }) {
            try db.execute(sql: "UPDATE outpost_versions SET guid = ? WHERE service = ? AND name = ? AND guid IS NULL",
                           arguments: [GlobalID.make(), service, defaultVersionName])
        }
    }

    /// The version a replica of a versioned service syncs through (`<owner>.<replica name>_<id>`).
    static func createReplicaVersion(service: String, replicaId: String, replicaName: String, db: Database, now: Int64) throws {
        let hex = replicaId.filter(\.isHexDigit).prefix(8).lowercased()
        try db.execute(sql: """
            INSERT OR IGNORE INTO outpost_versions(service, name, parent, replica_id, access, description, created_at)
            VALUES (?, ?, ?, ?, 'private', ?, ?)
            """, arguments: [service, "outpost.\(replicaName)_\(hex)", defaultVersionName, replicaId,
                             "Version of replica \(replicaId)", now])
        if try db.columns(in: "outpost_versions").contains(where: { $0.name == "guid" }) {
            try db.execute(sql: "UPDATE outpost_versions SET guid = ?, base_generation = (SELECT coalesce(max(generation), 0) FROM outpost_generations) WHERE replica_id = ? AND guid IS NULL",
                           arguments: [GlobalID.make(), replicaId])
        }
    }
}

extension FeatureStore {
    /// The change-tracking columns every layer and attachment table carries (not fields:
    /// never served as attributes). `outpost_created_gen` tells adds from updates for a
    /// replica at a given generation.
    static let changeTrackingColumns = [
        "outpost_created_gen INTEGER NOT NULL DEFAULT 0",
        "outpost_gen INTEGER NOT NULL DEFAULT 0",
        "outpost_replica TEXT",
    ]

    /// Adds the columns a table lacks (column definitions such as `"name TYPE ..."`).
    static func ensureColumns(_ definitions: [String], table: String, db: Database) throws {
        let existing = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]))
        for column in definitions where !existing.contains(String(column.prefix { $0 != " " })) {
            try db.execute(sql: "ALTER TABLE \(table.quotedDatabaseIdentifier) ADD COLUMN \(column)")
        }
    }

    static func addChangeTracking(toTable table: String, db: Database) throws {
        try ensureColumns(changeTrackingColumns, table: table, db: db)
        try db.execute(sql: "DROP INDEX IF EXISTS \("\(table)_outpost_gen".quotedDatabaseIdentifier)")
        try db.execute(sql: """
            CREATE INDEX IF NOT EXISTS \("\(table)_outpost_changes".quotedDatabaseIdentifier)
            ON \(table.quotedDatabaseIdentifier)(outpost_gen, outpost_replica, outpost_created_gen)
            """)
    }
}

extension FeatureStore {
    /// Replaces SpatiaLite's per-row triggers on a layer with lean ones that keep the same
    /// R*Tree (`idx_<table>_shape`) in step.
    ///
    /// SpatiaLite's triggers check geometry constraints (Outpost validates geometry before
    /// writing), stamp `geometry_columns_time`, and update the index through a function that
    /// prepares SQL on every call: together more than half the cost of an insert. The index
    /// stays registered with SpatiaLite (`spatial_index_enabled = 1`), so SpatiaLite tools
    /// still see and use it.
    static func installLeanSpatialTriggers(table: String, db: Database) throws {
        let column = StoredLayer.geometryColumn
        let index = "idx_\(table)_\(column)".quotedDatabaseIdentifier
        for trigger in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", arguments: [table]) {
            try db.execute(sql: "DROP TRIGGER \(trigger.quotedDatabaseIdentifier)")
        }
        let t = table.quotedDatabaseIdentifier
        let g = column.quotedDatabaseIdentifier
        let bounds = "MbrMinX(NEW.\(g)), MbrMaxX(NEW.\(g)), MbrMinY(NEW.\(g)), MbrMaxY(NEW.\(g))"
        try db.execute(sql: """
            CREATE TRIGGER \("gii_\(table)_\(column)".quotedDatabaseIdentifier) AFTER INSERT ON \(t)
            FOR EACH ROW WHEN NEW.\(g) IS NOT NULL BEGIN
                INSERT INTO \(index)(pkid, xmin, xmax, ymin, ymax) VALUES (NEW.ROWID, \(bounds));
            END;
            CREATE TRIGGER \("giu_\(table)_\(column)".quotedDatabaseIdentifier) AFTER UPDATE OF \(g) ON \(t)
            FOR EACH ROW BEGIN
                DELETE FROM \(index) WHERE pkid = OLD.ROWID;
                INSERT INTO \(index)(pkid, xmin, xmax, ymin, ymax) SELECT NEW.ROWID, \(bounds) WHERE NEW.\(g) IS NOT NULL;
            END;
            CREATE TRIGGER \("gid_\(table)_\(column)".quotedDatabaseIdentifier) AFTER DELETE ON \(t)
            FOR EACH ROW BEGIN
                DELETE FROM \(index) WHERE pkid = OLD.ROWID;
            END;
            """)
    }
}
