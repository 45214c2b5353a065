import OutpostStorage
import OutpostSync
import OutpostWire

/// Named versions of versioned services on PostgreSQL (`VersionStore`), with the SpatiaLite
/// backend's rules (`SpatiaLiteVersions`; docs/sync-semantics.md, Named versions): a version
/// branches from DEFAULT at a tick, keeps its edits as whole rows in
/// `<table>__version_rows`, reads as DEFAULT overlaid by them, and posts attribute by
/// attribute against DEFAULT as its base knew it (`PostgresVersionBase`).
public struct PostgresVersions: VersionStore {
    let pool: PostgresPool
    let held: PostgresCatalog
    let clock: any WallClock

    /// The columns `version(_:)` reads, then the transaction a post recorded with the base.
    static let selected = "name, parent, replica_id, access, description, created_at, guid, base_tick, base_xid"

    static func version(_ row: PostgresRow) throws -> DataVersion {
        DataVersion(
            name: try row.required(0, row.string), parent: row.string(1), replicaId: row.string(2), access: try row.required(3, row.string),
            description: row.string(4) ?? "", creationDate: try row.required(5, row.int64), guid: row.string(6),
            baseGeneration: try row.int64(7) ?? 0)
    }

    /// The versions of a service: DEFAULT first, then the others by creation.
    public func versions(service: String) throws -> [DataVersion] {
        let name = try held.load().existingService(named: service).definition.name
        return try pool.query(
            """
            SELECT \(unescaped: Self.selected) FROM outpost_versions WHERE service = \(name)
            ORDER BY parent IS NOT NULL, created_at, name
            """
        ).rows.map(Self.version)
    }

    /// Creates a named version (`outpost.<name>`) branching from DEFAULT now: its base is a
    /// tick taken in the creating transaction.
    public func createVersion(service: String, name: String, description: String, access: String, owner: String) throws -> DataVersion {
        let stored = try held.load().existingService(named: service)
        guard stored.definition.isVersioned else { throw VersionFailure.notVersioned(stored.definition.name) }
        let bare = name.split(separator: ".").last.map(String.init) ?? name
        guard !bare.isEmpty, bare.count <= 62, bare.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw VersionFailure.invalidName(name)
        }
        let full = "\(owner).\(bare)"
        let service = stored.definition.name
        do {
            return try pool.transaction { connection in
                let tick = try GenerationTicks.take(on: connection).tick
                let row = try connection.query(
                    """
                    INSERT INTO outpost_versions(service, name, parent, replica_id, access, description, created_at, guid, base_tick)
                    VALUES (\(service), \(full), \(DataVersion.defaultName), NULL, \(access), \(description), \(clock.milliseconds()),
                        \(GlobalID.make()), \(tick))
                    RETURNING \(unescaped: Self.selected)
                    """
                ).first
                guard let row else { throw VersionFailure.notFound(full) }
                return try Self.version(row)
            }
        } catch let error as PostgresError where error.sqlState == PostgresError.uniqueViolation {
            throw VersionFailure.exists(full)
        }
    }

    /// A version by full name (`owner.name`), bare name or GUID (case-insensitive).
    public func version(service: String, named name: String) throws -> DataVersion? {
        let stored = try held.load().existingService(named: service)
        return try pool.withConnection { try Self.version(name, service: stored.definition.name, connection: $0) }
    }

    static func version(_ name: String, service: String, connection: PostgresConnection, locked: Bool = false) throws -> DataVersion? {
        try versionRow(name, service: service, connection: connection, locked: locked).map(Self.version)
    }

    /// A version's row (`selected`), by full name, bare name or GUID.
    static func versionRow(_ name: String, service: String, connection: PostgresConnection, locked: Bool = false) throws -> PostgresRow? {
        try connection.query(
            """
            SELECT \(unescaped: Self.selected) FROM outpost_versions
            WHERE service = \(service) AND (lower(name) = lower(\(name)) OR lower(name) = lower('outpost.' || \(name)) OR guid = \(GlobalID.normalize(name)))
            \(unescaped: locked ? "FOR UPDATE" : "")
            """
        ).first
    }

    /// Deletes a named version and its unposted edits.
    public func deleteVersion(service: String, named name: String) throws {
        let stored = try held.load().existingService(named: service)
        try pool.transaction { connection in
            guard let version = try Self.version(name, service: stored.definition.name, connection: connection, locked: true) else {
                throw VersionFailure.notFound(name)
            }
            guard version.parent != nil, version.replicaId == nil else { throw VersionFailure.isDefault }
            for layer in stored.layers where layer.isVersioned {
                try connection.query("DELETE FROM \(identifier: layer.versionTable) WHERE outpost_version = \(version.name)")
            }
            try connection.query("DELETE FROM outpost_versions WHERE service = \(stored.definition.name) AND name = \(version.name)")
        }
    }

    /// The answer of a query against a version: DEFAULT's rows overlaid by the version's
    /// (its updates replace, its deletes hide, its adds join).
    public func query(_ query: LayerQuery, service: String, layer layerId: Int, version name: String) throws -> QueryAnswer {
        let layer = try held.load().existingLayer(service: service, id: layerId)
        guard layer.isVersioned else { throw VersionFailure.notVersioned(service) }
        do {
            return try pool.transaction(.repeatableRead) { connection in
                guard let version = try Self.version(name, service: layer.serviceName, connection: connection) else {
                    throw VersionFailure.notFound(name)
                }
                guard version.parent != nil else { return try PostgresFeatures.answer(query, layer: layer, connection: connection) }
                return try PostgresFeatures.answer(query, layer: layer, source: Self.overlay(layer, version: version.name), connection: connection)
            }
        } catch let error as PostgresError where error.kind == .statement && ["22", "42"].contains(error.sqlState?.prefix(2) ?? "") {
            throw StorageRefusal.invalidClause(error.message, in: .whereClause)
        }
    }

    /// The rows of a version: DEFAULT's without those the version holds, and the version's
    /// own that are not deletes.
    static func overlay(_ layer: StoredLayer, version: String) -> (sql: String, binds: [PostgresValue]) {
        let columns = columns(of: layer).map(PostgresQuery.quoted(identifier:)).joined(separator: ", ")
        let gid = PostgresQuery.quoted(identifier: layer.definition.globalIdField)
        let rows = PostgresQuery.quoted(identifier: layer.versionTable)
        return (
            """
            (SELECT \(columns) FROM \(PostgresQuery.quoted(identifier: layer.tableName))
                WHERE \(gid) NOT IN (SELECT \(gid) FROM \(rows) WHERE outpost_version = ?)
             UNION ALL SELECT \(columns) FROM \(rows) WHERE outpost_version = ? AND NOT outpost_deleted)
            """, [.text(version), .text(version)]
        )
    }

    /// Every column of a layer's table, in a fixed order: its fields, its geometry, its stamps.
    static func columns(of layer: StoredLayer) -> [String] {
        layer.definition.fields.map(\.name) + (layer.isSpatial ? [StoredLayer.geometryColumn] : [])
            + ["outpost_xid", "outpost_created_xid", "outpost_replica", "outpost_created_by"]
    }
}
