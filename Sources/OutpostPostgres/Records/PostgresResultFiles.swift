import OutpostStorage
import OutpostSync

/// Who may download each result file, on PostgreSQL (`ResultFileRegistry`).
public struct PostgresResultFiles: ResultFileRegistry {
    let pool: PostgresPool
    let clock: any WallClock

    public func recordResultFile(_ name: String, owner: String, service: String?) throws {
        try pool.query(
            """
            INSERT INTO outpost_result_file_owners(name, owner, service, created_at) VALUES (\(name), \(owner), \(service)::text, \(clock.milliseconds()))
            ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, service = excluded.service, created_at = excluded.created_at
            """)
    }

    public func forgetResultFiles(_ names: [String]) throws {
        guard !names.isEmpty else { return }
        try pool.query("DELETE FROM outpost_result_file_owners WHERE name = ANY(\(PostgresTextArray(names)))")
    }

    public func resultFiles(ownedBy owner: String) throws -> [String] {
        try pool.query("SELECT name FROM outpost_result_file_owners WHERE owner = \(owner)").rows.map { try $0.required(0, $0.string) }
    }

    public func resultFiles(madeFor service: String) throws -> [String] {
        try pool.query("SELECT name FROM outpost_result_file_owners WHERE lower(service) = lower(\(service))").rows.map {
            try $0.required(0, $0.string)
        }
    }

    public func resultFileOwner(_ name: String) throws -> String {
        try pool.query("SELECT owner FROM outpost_result_file_owners WHERE name = \(name)").first?.string(0) ?? ""
    }

    public func resultFileService(_ name: String) throws -> String? {
        try pool.query("SELECT service FROM outpost_result_file_owners WHERE name = \(name)").first?.string(0)
    }
}
