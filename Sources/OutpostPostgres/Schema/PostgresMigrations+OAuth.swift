extension PostgresMigrations {
    /// The portal's OAuth 2.0 records (`OAuthGrantStore`, docs/identity.md): secrets, codes and
    /// refresh tokens only hashed. An access token of a client is a user directory token that
    /// names the client and the most it may carry (`role`); rows from before carry their
    /// user's role (NULL).
    static let oauth = PostgresMigration(
        version: 12, name: "OAuth 2.0",
        statements: [
            """
            CREATE TABLE outpost_oauth_apps (
                client_id text PRIMARY KEY,
                item_id text NOT NULL UNIQUE,
                owner text NOT NULL,
                app_type text NOT NULL,
                redirect_uris text NOT NULL,
                secret_hash bytea NOT NULL,
                registered bigint NOT NULL,
                modified bigint NOT NULL)
            """,
            """
            CREATE TABLE outpost_oauth_codes (
                code_hash bytea PRIMARY KEY,
                client_id text NOT NULL,
                redirect_uri text NOT NULL,
                user_name text NOT NULL,
                code_challenge text,
                minutes integer NOT NULL,
                expires_at bigint NOT NULL)
            """,
            """
            CREATE TABLE outpost_oauth_refresh_tokens (
                token_hash bytea PRIMARY KEY,
                family text NOT NULL,
                client_id text NOT NULL,
                user_name text NOT NULL,
                minutes integer NOT NULL,
                expires_at bigint NOT NULL,
                spent_at bigint,
                created_at bigint NOT NULL)
            """,
            "CREATE INDEX outpost_oauth_refresh_tokens_family ON outpost_oauth_refresh_tokens (family)",
            "CREATE INDEX outpost_oauth_refresh_tokens_user ON outpost_oauth_refresh_tokens (lower(user_name))",
            "CREATE TABLE outpost_oauth_sealing_key (one boolean PRIMARY KEY DEFAULT true CHECK (one), key bytea NOT NULL)",
            "ALTER TABLE outpost_tokens ADD COLUMN client_id text",
            "ALTER TABLE outpost_tokens ADD COLUMN role text CHECK (role IN ('viewer', 'editor', 'admin'))",
        ])

    /// An app's API keys (docs/identity.md, "API keys"): what they reach (privileges,
    /// referrers), its secret sealed so its owner reads it again, the expiration dates of its
    /// `apiToken` slots. A key's token is a user directory token of the app's client with its
    /// slot (one live per slot), the `apiKey` (slot 0) sealed. An access token names the
    /// refresh token family it came with, so revoking the family ends it. Slot 3 marks an app
    /// token (`client_credentials`: scoped like the keys, many live at once, so not unique). A
    /// result file keeps the service it was made for (null: made before, owner alone).
    static let apiKeys = PostgresMigration(
        version: 13, name: "API keys",
        statements: [
            "ALTER TABLE outpost_oauth_apps ADD COLUMN privileges text NOT NULL DEFAULT '[]'",
            "ALTER TABLE outpost_oauth_apps ADD COLUMN http_referrers text NOT NULL DEFAULT '[]'",
            "ALTER TABLE outpost_oauth_apps ADD COLUMN secret_sealed text",
            "ALTER TABLE outpost_oauth_apps ADD COLUMN token1_expires_at bigint",
            "ALTER TABLE outpost_oauth_apps ADD COLUMN token2_expires_at bigint",
            "ALTER TABLE outpost_tokens ADD COLUMN api_slot integer CHECK (api_slot IN (0, 1, 2, 3))",
            "ALTER TABLE outpost_tokens ADD COLUMN api_key_sealed text",
            "ALTER TABLE outpost_tokens ADD COLUMN refresh_family text",
            "CREATE UNIQUE INDEX outpost_tokens_api_slot ON outpost_tokens (client_id, api_slot) WHERE api_slot IN (0, 1, 2)",
            "CREATE INDEX outpost_tokens_refresh_family ON outpost_tokens (refresh_family) WHERE refresh_family IS NOT NULL",
            "ALTER TABLE outpost_result_file_owners ADD COLUMN service text",
        ])

    static let storeFlags = PostgresMigration(
        version: 14, name: "store flags",
        statements: [
            // What a store remembers of its history (`StoreFlag`); a database that already held
            // services or tile sets was seeded, or is an organisation's own.
            "CREATE TABLE outpost_store_flags (name text PRIMARY KEY, set_at bigint NOT NULL)",
            """
            INSERT INTO outpost_store_flags(name, set_at)
                SELECT 'demo-seeded', 0 WHERE EXISTS (SELECT 1 FROM outpost_services) OR EXISTS (SELECT 1 FROM outpost_tile_sets)
            """,
        ])

    static let locators = PostgresMigration(
        version: 15, name: "locators",
        statements: [
            // Locators (docs/geocoding.md, "Locators"): entries with their tokens, searched by
            // PostgreSQL's full text (words, prefixes) and pg_trgm (misspellings).
            "CREATE EXTENSION IF NOT EXISTS pg_trgm",
            "CREATE TABLE outpost_locators (name text PRIMARY KEY, definition text NOT NULL, built_at bigint NOT NULL)",
            "CREATE UNIQUE INDEX outpost_locators_lower_name ON outpost_locators (lower(name))",
            """
            CREATE TABLE outpost_locator_entries (
                locator text NOT NULL REFERENCES outpost_locators(name) ON DELETE CASCADE,
                kind text NOT NULL, entry_id text NOT NULL, tokens text NOT NULL,
                min_x double precision NOT NULL, min_y double precision NOT NULL, max_x double precision NOT NULL, max_y double precision NOT NULL,
                entry text NOT NULL,
                PRIMARY KEY (locator, kind, entry_id))
            """,
            // An expression index, not a generated column: snapshots copy rows with `SELECT *`.
            "CREATE INDEX outpost_locator_entries_words ON outpost_locator_entries USING gin (to_tsvector('simple', tokens))",
            "CREATE INDEX outpost_locator_entries_trigrams ON outpost_locator_entries USING gin (tokens gin_trgm_ops)",
            "CREATE INDEX outpost_locator_entries_x ON outpost_locator_entries (locator, min_x)",
        ])

    static let networks = PostgresMigration(
        version: 16, name: "networks",
        statements: [
            // Route networks (docs/routing.md, "Stored form"): each graph kept whole.
            "CREATE TABLE outpost_networks (name text PRIMARY KEY, definition text NOT NULL, graph bytea NOT NULL, built_at bigint NOT NULL)",
            "CREATE UNIQUE INDEX outpost_networks_lower_name ON outpost_networks (lower(name))",
        ])

    static let settings = PostgresMigration(
        version: 17, name: "settings",
        statements: [
            // The organisation's choices (`StoreSetting`), such as its utility services.
            "CREATE TABLE outpost_settings (name text PRIMARY KEY, value text NOT NULL, set_at bigint NOT NULL)"
        ])
}
