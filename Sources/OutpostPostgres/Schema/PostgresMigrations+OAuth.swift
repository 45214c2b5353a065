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
}
