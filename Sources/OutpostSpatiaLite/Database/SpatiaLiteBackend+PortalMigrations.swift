import GRDB

extension SpatiaLiteBackend {
    /// The portal's and the tile services' tables (issue 20). Forward only.
    static func registerPortalMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v13-portal-items") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outpost_items (
                        id TEXT NOT NULL PRIMARY KEY,
                        owner TEXT NOT NULL COLLATE NOCASE,
                        folder TEXT,
                        title TEXT NOT NULL,
                        type TEXT NOT NULL,
                        type_keywords TEXT NOT NULL,
                        tags TEXT NOT NULL,
                        snippet TEXT NOT NULL,
                        description TEXT NOT NULL,
                        url TEXT,
                        access TEXT NOT NULL CHECK (access IN ('private', 'org', 'public')),
                        created INTEGER NOT NULL,
                        modified INTEGER NOT NULL,
                        properties TEXT NOT NULL,
                        extent TEXT NOT NULL,
                        spatial_reference TEXT NOT NULL,
                        name TEXT,
                        size INTEGER NOT NULL,
                        thumbnail TEXT,
                        data_text TEXT,
                        data_file TEXT
                    );
                    CREATE INDEX outpost_items_owner ON outpost_items(owner, folder);
                    CREATE TABLE outpost_item_relationships (
                        origin TEXT NOT NULL,
                        destination TEXT NOT NULL,
                        type TEXT NOT NULL,
                        created INTEGER NOT NULL,
                        PRIMARY KEY (origin, destination, type)
                    );
                    CREATE INDEX outpost_item_relationships_destination ON outpost_item_relationships(destination);
                    CREATE TABLE outpost_item_resources (
                        item TEXT NOT NULL,
                        name TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        created INTEGER NOT NULL,
                        PRIMARY KEY (item, name)
                    );
                    CREATE TABLE outpost_folders (
                        id TEXT NOT NULL PRIMARY KEY,
                        owner TEXT NOT NULL COLLATE NOCASE,
                        title TEXT NOT NULL,
                        created INTEGER NOT NULL
                    );
                    CREATE UNIQUE INDEX outpost_folders_title ON outpost_folders(owner, title COLLATE NOCASE);
                    """)
        }
        migrator.registerMigration("v14-tile-sets") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outpost_tile_sets (
                        name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
                        kind TEXT NOT NULL CHECK (kind IN ('raster', 'vector')),
                        format TEXT NOT NULL,
                        min_zoom INTEGER NOT NULL,
                        max_zoom INTEGER NOT NULL,
                        bounds TEXT NOT NULL,
                        description TEXT NOT NULL,
                        metadata TEXT NOT NULL,
                        created INTEGER NOT NULL,
                        file TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v15-job-progress-and-output") { db in
            // Tile exports report how far they are; estimates answer a value, not a file.
            try db.execute(
                sql: """
                    ALTER TABLE outpost_jobs ADD COLUMN progress_done INTEGER;
                    ALTER TABLE outpost_jobs ADD COLUMN progress_total INTEGER;
                    ALTER TABLE outpost_jobs ADD COLUMN output TEXT;
                    """)
        }
        migrator.registerMigration("v16-layer-subtypes") { db in
            // A layer's subtypes as the layer resource serves them (`LayerSubtypes`), or NULL.
            try db.execute(sql: "ALTER TABLE outpost_layers ADD COLUMN subtypes TEXT")
        }
        migrator.registerMigration("v17-store-identity") { db in
            // Which store this is, and how many times it was restored (docs/operations.md).
            try db.execute(
                sql: """
                    CREATE TABLE outpost_store_identity (
                        one INTEGER PRIMARY KEY CHECK (one = 1),
                        store_id TEXT NOT NULL,
                        epoch INTEGER NOT NULL DEFAULT 0,
                        restored_at INTEGER,
                        restored_from INTEGER,
                        restored_generation INTEGER
                    );
                    INSERT INTO outpost_store_identity(one, store_id) VALUES (1, lower(hex(randomblob(16))));
                    """)
        }
        migrator.registerMigration("v18-upload-owners") { db in
            // Who made each upload item: only they and administrators use it (issue 43).
            try db.execute(sql: "ALTER TABLE outpost_uploads ADD COLUMN owner TEXT NOT NULL DEFAULT ''")
        }
    }
}
