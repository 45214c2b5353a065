import Foundation
import GRDB
import OutpostPostgres
import OutpostSpatiaLite

extension SpatiaLiteToPostgres {
    /// A table of the server's records moved row for row: the SpatiaLite query and the
    /// PostgreSQL table and columns it fills, in the same order.
    struct RecordTable {
        var name: String
        var select: String
        var into: String
    }

    /// Users and their tokens (hashes as stored: passwords and issued tokens keep working, API
    /// keys too), the OAuth 2.0 records (apps, codes, refresh tokens, the sealing key: sign-ins go on), the
    /// portal (items, relationships, resources, folders), tile sets and upload items. Their
    /// files stay where they are: a PostgreSQL server given the same data folder (`--data`)
    /// reads them in place.
    static let recordTables = [
        RecordTable(
            name: "users", select: "SELECT name, role, salt, hash, rounds, created_at FROM outpost_users",
            into: "outpost_users(name, role, salt, hash, rounds, created_at)"),
        RecordTable(
            name: "tokens",
            select: """
                SELECT token_hash, user, expires_at, created_at, client_id, role, api_slot, api_key_sealed, refresh_family FROM outpost_tokens
                """,
            into: "outpost_tokens(token_hash, user_name, expires_at, created_at, client_id, role, api_slot, api_key_sealed, refresh_family)"),
        RecordTable(
            name: "oauth apps",
            select: """
                SELECT client_id, item_id, owner, app_type, redirect_uris, secret_hash, registered, modified, privileges, http_referrers,
                    secret_sealed, token1_expires_at, token2_expires_at FROM outpost_oauth_apps
                """,
            into: """
                outpost_oauth_apps(client_id, item_id, owner, app_type, redirect_uris, secret_hash, registered, modified, privileges,
                    http_referrers, secret_sealed, token1_expires_at, token2_expires_at)
                """),
        RecordTable(
            name: "oauth codes",
            select: "SELECT code_hash, client_id, redirect_uri, user, code_challenge, minutes, expires_at FROM outpost_oauth_codes",
            into: "outpost_oauth_codes(code_hash, client_id, redirect_uri, user_name, code_challenge, minutes, expires_at)"),
        RecordTable(
            name: "oauth refresh tokens",
            select: "SELECT token_hash, family, client_id, user, minutes, expires_at, spent_at, created_at FROM outpost_oauth_refresh_tokens",
            into: "outpost_oauth_refresh_tokens(token_hash, family, client_id, user_name, minutes, expires_at, spent_at, created_at)"),
        RecordTable(
            name: "oauth sealing key", select: "SELECT key FROM outpost_oauth_sealing_key", into: "outpost_oauth_sealing_key(key)"),
        RecordTable(
            name: "portal items",
            select: """
                SELECT id, owner, folder, title, type, type_keywords, tags, snippet, description, url, access, created, modified, properties,
                    extent, spatial_reference, name, size, thumbnail, data_text, data_file FROM outpost_items
                """,
            into: """
                outpost_items(id, owner, folder, title, type, type_keywords, tags, snippet, description, url, access, created, modified,
                    properties, extent, spatial_reference, name, size, thumbnail, data_text, data_file)
                """),
        RecordTable(
            name: "item relationships", select: "SELECT origin, destination, type, created FROM outpost_item_relationships",
            into: "outpost_item_relationships(origin, destination, type, created)"),
        RecordTable(
            name: "item resources", select: "SELECT item, name, size, created FROM outpost_item_resources",
            into: "outpost_item_resources(item, name, size, created)"),
        RecordTable(
            name: "folders", select: "SELECT id, owner, title, created FROM outpost_folders", into: "outpost_folders(id, owner, title, created)"),
        RecordTable(
            name: "tile sets",
            select: "SELECT name, kind, format, min_zoom, max_zoom, bounds, description, metadata, created, file FROM outpost_tile_sets",
            into: "outpost_tile_sets(name, kind, format, min_zoom, max_zoom, bounds, description, metadata, created, file)"),
        RecordTable(
            name: "upload items", select: "SELECT item_id, service, item_name, description, created_at, committed, size, owner FROM outpost_uploads",
            into: "outpost_uploads(item_id, service, item_name, description, created_at, committed, size, owner)"),
        RecordTable(
            name: "settings", select: "SELECT name, value, set_at FROM outpost_settings", into: "outpost_settings(name, value, set_at)"),
    ]

    /// Moves every record table in one transaction; returns the rows moved per table.
    static func copyRecords(_ store: SpatiaLiteBackend, into backend: PostgresBackend) throws -> [String: Int] {
        var moved: [String: Int] = [:]
        try backend.pool.transaction { connection in
            for table in recordTables {
                let rows = try store.read { db in try Row.fetchAll(db, sql: table.select).map { $0.databaseValues.map(Self.postgresValue) } }
                for values in rows {
                    let placeholders = (1...values.count).map { "$\($0)" }.joined(separator: ", ")
                    try connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(table.into) VALUES (\(placeholders))", binds: values))
                }
                moved[table.name] = rows.count
            }
        }
        return moved
    }

    /// A SQLite value as a parameter PostgreSQL reads into the column's type (integers kept as
    /// 0/1 read as booleans; blobs as bytea).
    static func postgresValue(_ value: DatabaseValue) -> PostgresValue {
        switch value.storage {
        case .null: .null
        case .int64(let integer): .text(String(integer))
        case .double(let double): .text(double.description)
        case .string(let text): .text(text)
        case .blob(let data): .binary([UInt8](data))
        }
    }
}
