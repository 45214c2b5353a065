import Foundation
import GRDB
import OutpostStorage

extension SpatiaLiteVersions {
    /// The versions of a service: DEFAULT first, then replica versions by creation.
    public func versions(service: String) throws -> [DataVersion] {
        let name = try self.service(named: service).definition.name
        return try pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT name, parent, replica_id, access, description, created_at, guid, base_generation FROM outpost_versions
                    WHERE service = ? ORDER BY parent IS NOT NULL, created_at, name
                    """, arguments: [name]
            ).map(DataVersion.init(row:))
        }
    }
}
