import GRDB

extension SpatiaLiteBackend {
    /// The portal's OAuth 2.0 records (`OAuthGrantStore`, docs/identity.md). Forward only.
    static func registerOAuthMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v19-oauth") { db in
            // Secrets, codes and refresh tokens only hashed. An access token of a client is a
            // user directory token that names the client and the most it may carry (`role`);
            // rows from before carry their user's role (NULL).
            try db.execute(
                sql: """
                    CREATE TABLE outpost_oauth_apps (
                        client_id TEXT NOT NULL PRIMARY KEY,
                        item_id TEXT NOT NULL UNIQUE,
                        owner TEXT NOT NULL COLLATE NOCASE,
                        app_type TEXT NOT NULL,
                        redirect_uris TEXT NOT NULL,
                        secret_hash BLOB NOT NULL,
                        registered INTEGER NOT NULL,
                        modified INTEGER NOT NULL
                    );
                    CREATE TABLE outpost_oauth_codes (
                        code_hash BLOB NOT NULL PRIMARY KEY,
                        client_id TEXT NOT NULL,
                        redirect_uri TEXT NOT NULL,
                        user TEXT NOT NULL,
                        code_challenge TEXT,
                        minutes INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE TABLE outpost_oauth_refresh_tokens (
                        token_hash BLOB NOT NULL PRIMARY KEY,
                        family TEXT NOT NULL,
                        client_id TEXT NOT NULL,
                        user TEXT NOT NULL,
                        minutes INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL,
                        spent_at INTEGER,
                        created_at INTEGER NOT NULL
                    );
                    CREATE INDEX outpost_oauth_refresh_tokens_family ON outpost_oauth_refresh_tokens(family);
                    CREATE INDEX outpost_oauth_refresh_tokens_user ON outpost_oauth_refresh_tokens(lower(user));
                    CREATE TABLE outpost_oauth_sealing_key (
                        one INTEGER PRIMARY KEY CHECK (one = 1),
                        key BLOB NOT NULL
                    );
                    ALTER TABLE outpost_tokens ADD COLUMN client_id TEXT;
                    ALTER TABLE outpost_tokens ADD COLUMN role TEXT CHECK (role IN ('viewer', 'editor', 'admin'));
                    """)
        }
        migrator.registerMigration("v20-api-keys") { db in
            // An app's API keys: what they reach (privileges, referrers), its secret sealed so
            // its owner reads it again, the expiration dates of its `apiToken` slots. A key's
            // token is a user directory token of the app's client with its slot (one live per
            // slot), the `apiKey` (slot 0) sealed. An access token names the refresh token
            // family it came with, so revoking the family ends it. Slot 3 marks an app token
            // (`client_credentials`: scoped like the keys, many live at once, so not unique). A
            // result file keeps the service it was made for (nil: made before, owner alone).
            try db.execute(
                sql: """
                    ALTER TABLE outpost_oauth_apps ADD COLUMN privileges TEXT NOT NULL DEFAULT '[]';
                    ALTER TABLE outpost_oauth_apps ADD COLUMN http_referrers TEXT NOT NULL DEFAULT '[]';
                    ALTER TABLE outpost_oauth_apps ADD COLUMN secret_sealed TEXT;
                    ALTER TABLE outpost_oauth_apps ADD COLUMN token1_expires_at INTEGER;
                    ALTER TABLE outpost_oauth_apps ADD COLUMN token2_expires_at INTEGER;
                    ALTER TABLE outpost_tokens ADD COLUMN api_slot INTEGER CHECK (api_slot IN (0, 1, 2, 3));
                    ALTER TABLE outpost_tokens ADD COLUMN api_key_sealed TEXT;
                    ALTER TABLE outpost_tokens ADD COLUMN refresh_family TEXT;
                    CREATE UNIQUE INDEX outpost_tokens_api_slot ON outpost_tokens(client_id, api_slot) WHERE api_slot IN (0, 1, 2);
                    CREATE INDEX outpost_tokens_refresh_family ON outpost_tokens(refresh_family) WHERE refresh_family IS NOT NULL;
                    ALTER TABLE outpost_result_file_owners ADD COLUMN service TEXT;
                    """)
        }
        migrator.registerMigration("v21-store-flags") { db in
            // What a store remembers of its history (`StoreFlag`); a store that already held
            // services or tile sets was seeded, or is an organisation's own.
            try db.execute(
                sql: """
                    CREATE TABLE outpost_store_flags (name TEXT NOT NULL PRIMARY KEY, set_at INTEGER NOT NULL);
                    INSERT INTO outpost_store_flags(name, set_at)
                        SELECT 'demo-seeded', 0 WHERE EXISTS (SELECT 1 FROM outpost_services) OR EXISTS (SELECT 1 FROM outpost_tile_sets);
                    """)
        }
        migrator.registerMigration("v22-locators") { db in
            // Locators (docs/geocoding.md, "Locators"): entries with their tokens, kept twice
            // more by FTS5 (whole words and prefixes; three-letter pieces for misspellings).
            try db.execute(
                sql: """
                    CREATE TABLE outpost_locators (
                        name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE, definition TEXT NOT NULL, built_at INTEGER NOT NULL);
                    CREATE TABLE outpost_locator_entries (
                        row INTEGER PRIMARY KEY, locator TEXT NOT NULL, kind TEXT NOT NULL, entry_id TEXT NOT NULL, tokens TEXT NOT NULL,
                        min_x REAL NOT NULL, min_y REAL NOT NULL, max_x REAL NOT NULL, max_y REAL NOT NULL, entry TEXT NOT NULL,
                        UNIQUE (locator, kind, entry_id));
                    CREATE INDEX outpost_locator_entries_x ON outpost_locator_entries(locator, min_x);
                    CREATE VIRTUAL TABLE outpost_locator_words USING fts5(tokens, tokenize = 'unicode61');
                    CREATE VIRTUAL TABLE outpost_locator_trigrams USING fts5(tokens, tokenize = 'trigram');
                    """)
        }
        migrator.registerMigration("v23-networks") { db in
            // Route networks (docs/routing.md, "Stored form"): each graph kept whole.
            try db.execute(
                sql: """
                    CREATE TABLE outpost_networks (
                        name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE, definition TEXT NOT NULL, graph BLOB NOT NULL, built_at INTEGER NOT NULL);
                    """)
        }
        migrator.registerMigration("v24-settings") { db in
            // The organisation's choices (`StoreSetting`), such as its utility services.
            try db.execute(sql: "CREATE TABLE outpost_settings (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL, set_at INTEGER NOT NULL)")
        }
    }
}
