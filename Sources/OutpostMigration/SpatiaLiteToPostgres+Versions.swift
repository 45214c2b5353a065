import Foundation
import GRDB
import OutpostPostgres
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire

/// Versioned services move with what their rules read (docs/postgres.md, "Moving a data
/// folder"): each layer's history, with the generations it was written and replaced at mapped
/// to their buckets' transactions (so a replica's tick sees exactly the row versions its
/// generation saw), the named versions' unposted rows, and the versions themselves with their
/// GUIDs, each named version based at the tick standing for its base generation.
extension SpatiaLiteToPostgres {
    /// The base generations of named versions: bucket boundaries, so each has a tick.
    static func namedVersionBases(_ store: SpatiaLiteBackend, services: [String]) throws -> [Int64] {
        try store.read { db in
            try Row.fetchAll(db, sql: "SELECT service, base_generation FROM outpost_versions WHERE parent IS NOT NULL AND replica_id IS NULL")
                .filter { services.contains($0[0] as String) }.map { $0[1] as Int64? ?? 0 }
        }
    }

    /// The history of a versioned layer, every kept row version with its writer and replacer.
    static func copyHistory(
        _ old: StoredLayer, into new: StoredLayer, creations: [(upTo: Int64, xid: Int64)], store: SpatiaLiteBackend, pool: PostgresPool
    ) throws -> Int {
        let select =
            featureSelect(old, alias: "h") + ["h.outpost_gen", "h.outpost_created_gen", "h.outpost_replica", "g.replica_id", "h.outpost_valid_to"]
        let selected = select.joined(separator: ", ")
        let lines = try store.read { db -> [String] in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(selected) FROM \(old.historyTable.quotedDatabaseIdentifier) h
                    LEFT JOIN outpost_generations g ON g.generation = h.outpost_created_gen
                    """
            ).map { row in
                var (cells, next) = featureCells(row, of: old, srid: new.srid)
                cells.append(String(creationXid(row[next] as Int64? ?? 0, creations)))
                cells.append(String(creationXid(row[next + 1] as Int64? ?? 0, creations)))
                cells.append(row[next + 2] as String?)
                cells.append(row[next + 3] as String?)
                cells.append(String(creationXid(row[next + 4] as Int64? ?? 0, creations)))
                return PostgresCopy.line(cells)
            }
        }
        let columns = featureColumns(old) + ["outpost_xid", "outpost_created_xid", "outpost_replica", "outpost_created_by", "outpost_valid_to"]
        try copy(lines, into: new.historyTable, columns: columns, pool: pool)
        return lines.count
    }

    /// The rows named versions hold and have not posted.
    static func copyVersionRows(_ old: StoredLayer, into new: StoredLayer, store: SpatiaLiteBackend, pool: PostgresPool) throws -> Int {
        let select = featureSelect(old, alias: "v") + ["v.outpost_replica", "v.outpost_version", "v.outpost_deleted"]
        let selected = select.joined(separator: ", ")
        let lines = try store.read { db -> [String] in
            try Row.fetchAll(db, sql: "SELECT \(selected) FROM \(old.versionTable.quotedDatabaseIdentifier) v").map { row in
                var (cells, next) = featureCells(row, of: old, srid: new.srid)
                cells += [row[next] as String?, row[next + 1] as String?, (row[next + 2] as Int64? ?? 0) == 0 ? "f" : "t"]
                return PostgresCopy.line(cells)
            }
        }
        let columns = featureColumns(old) + ["outpost_replica", "outpost_version", "outpost_deleted"]
        try copy(lines, into: new.versionTable, columns: columns, pool: pool)
        return lines.count
    }

    /// The versions, GUIDs and creation kept: DEFAULT and the replicas' versions (made when
    /// the service and the replicas were) take their GUIDs; named versions are made, based at
    /// the tick of their base generation. Returns how many versions moved.
    static func copyVersions(
        _ store: SpatiaLiteBackend, services: [String], ticks: [Int64: Int64], current: Int64, pool: PostgresPool
    ) throws -> Int {
        struct Version: Sendable {
            var service, name: String
            var parent, replica, access, description, guid: String?
            var created, base: Int64
        }
        let versions = try store.read { db in
            try Row.fetchAll(
                db, sql: "SELECT service, name, parent, replica_id, access, description, created_at, guid, base_generation FROM outpost_versions"
            ).map {
                Version(
                    service: $0[0], name: $0[1], parent: $0[2], replica: $0[3], access: $0[4], description: $0[5], guid: $0[7], created: $0[6],
                    base: $0[8] as Int64? ?? 0)
            }.filter { services.contains($0.service) }
        }
        for version in versions {
            let (service, name, parent, replica) = (version.service, version.name, version.parent, version.replica)
            let (access, description, created, guid) = (version.access, version.description, version.created, version.guid)
            let kept = guid ?? GlobalID.make()
            if parent == nil {
                try pool.query(
                    """
                    UPDATE outpost_versions SET guid = \(kept), created_at = \(created), description = coalesce(\(description), description)
                    WHERE service = \(service) AND parent IS NULL
                    """)
            } else if let replica {
                try pool.query(
                    """
                    UPDATE outpost_versions SET guid = \(kept), created_at = \(created), description = coalesce(\(description), description)
                    WHERE service = \(service) AND replica_id = \(replica)
                    """)
            } else {
                let base = ticks[version.base] ?? ticks[current] ?? 0
                try pool.query(
                    """
                    INSERT INTO outpost_versions(service, name, parent, replica_id, access, description, created_at, guid, base_tick)
                    VALUES (\(service), \(name), \(parent), NULL, \(access ?? "public"), \(description ?? ""), \(created), \(kept), \(base))
                    """)
            }
        }
        return versions.count
    }

    private static func copy(_ lines: [String], into table: String, columns: [String], pool: PostgresPool) throws {
        guard !lines.isEmpty else { return }
        try pool.withConnection { connection in
            try connection.copyIn("COPY \(PostgresQuery.quoted(identifier: table)) (\(columns.joined(separator: ", "))) FROM STDIN") { write in
                for chunk in stride(from: 0, to: lines.count, by: 10_000) {
                    try write(Array(lines[chunk..<min(lines.count, chunk + 10_000)].joined().utf8))
                }
            }
        }
    }
}
