extension PostgresMigrations {
    /// Upload items, the portal's items, folders and resources, and tile sets: rows here,
    /// bytes in the process's data folder as on SpatiaLite (docs/postgres.md, "Files").
    static let portal = PostgresMigration(
        version: 8, name: "uploads, portal and tile sets",
        statements: [
            """
            CREATE TABLE outpost_uploads (
                item_id text PRIMARY KEY,
                service text NOT NULL,
                item_name text NOT NULL,
                description text NOT NULL DEFAULT '',
                created_at bigint NOT NULL,
                committed boolean NOT NULL,
                size bigint NOT NULL DEFAULT 0)
            """,
            """
            CREATE TABLE outpost_items (
                id text PRIMARY KEY,
                owner text NOT NULL,
                folder text,
                title text NOT NULL,
                type text NOT NULL,
                type_keywords text NOT NULL,
                tags text NOT NULL,
                snippet text NOT NULL,
                description text NOT NULL,
                url text,
                access text NOT NULL CHECK (access IN ('private', 'org', 'public')),
                created bigint NOT NULL,
                modified bigint NOT NULL,
                properties text NOT NULL,
                extent text NOT NULL,
                spatial_reference text NOT NULL,
                name text,
                size bigint NOT NULL,
                thumbnail text,
                data_text text,
                data_file text)
            """,
            "CREATE INDEX outpost_items_owner ON outpost_items (lower(owner), folder)",
            """
            CREATE TABLE outpost_item_relationships (
                origin text NOT NULL,
                destination text NOT NULL,
                type text NOT NULL,
                created bigint NOT NULL,
                PRIMARY KEY (origin, destination, type))
            """,
            "CREATE INDEX outpost_item_relationships_destination ON outpost_item_relationships (destination)",
            """
            CREATE TABLE outpost_item_resources (
                item text NOT NULL,
                name text NOT NULL,
                size bigint NOT NULL,
                created bigint NOT NULL,
                PRIMARY KEY (item, name))
            """,
            """
            CREATE TABLE outpost_folders (
                id text PRIMARY KEY,
                owner text NOT NULL,
                title text NOT NULL,
                created bigint NOT NULL)
            """,
            "CREATE UNIQUE INDEX outpost_folders_title ON outpost_folders (lower(owner), lower(title))",
            """
            CREATE TABLE outpost_tile_sets (
                name text PRIMARY KEY,
                kind text NOT NULL CHECK (kind IN ('raster', 'vector')),
                format text NOT NULL,
                min_zoom integer NOT NULL,
                max_zoom integer NOT NULL,
                bounds text NOT NULL,
                description text NOT NULL,
                metadata text NOT NULL,
                created bigint NOT NULL,
                file text NOT NULL)
            """,
            "CREATE UNIQUE INDEX outpost_tile_sets_lower_name ON outpost_tile_sets (lower(name))",
        ])
}
