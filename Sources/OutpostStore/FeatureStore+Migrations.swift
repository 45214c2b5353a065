import GRDB

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
        return migrator
    }
}
