import Foundation
import Hummingbird
import OutpostStorage
import OutpostWire

/// The server's backups below `/arcgis/rest/admin/backups` (docs/operations.md, "Backups from
/// the server"): listed with their manifests, one taken now (the same online backup as
/// `outpost backup`), one's manifest. An administrator's; not configured without
/// `serve --backup-dir`; PostgreSQL's are made with its own tools.
struct BackupsController: Sendable {
    let backups: ServerBackups?

    func addRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes.read("rest/admin/backups") { _, c in try list(c) }
        routes.change("rest/admin/backups/create") { _, c in try await create(c) }
        routes.read("rest/admin/backups/:backup") { _, c in try manifest(c) }
    }

    private func configured() throws -> ServerBackups {
        guard let backups else {
            throw ArcGISError(kind: .unsupported, message: "Backups are not configured.", details: ["Start the server with --backup-dir DIR."])
        }
        return backups
    }

    static func summary(_ name: String, _ manifest: BackupManifest) -> JSONValue {
        [
            "name": .string(name), "created": .int(manifest.createdAt), "generation": .int(manifest.generation),
            "store": ["id": .string(manifest.store.id), "epoch": .int(manifest.store.epoch)], "files": .int(Int64(manifest.files.count)),
            "bytes": .int(manifest.files.reduce(0) { $0 + $1.size }),
        ]
    }

    private func list(_ c: OutpostRequestContext) throws -> Response {
        let backups = try configured()
        let listed = backups.listed().map { Self.summary($0.name, $0.manifest) }
        return RESTResponse.json(["backups": .array(listed), "canTake": .bool(backups.take != nil)], parameters: c.form.parameters)
    }

    private func create(_ c: OutpostRequestContext) async throws -> Response {
        guard let take = try configured().take else {
            throw ArcGISError(
                kind: .unsupported, message: "This server's data is backed up with PostgreSQL's tools.",
                details: ["Use pg_basebackup (or pg_dump) with the object store: docs/operations.md, \"PostgreSQL\"."])
        }
        let manifest = try await StoreCall.run { try BackupsTaking.one(take) }
        let name = try configured().listed().first { $0.manifest == manifest }?.name ?? ""
        return RESTResponse.json(["backup": Self.summary(name, manifest)], parameters: c.form.parameters)
    }

    private func manifest(_ c: OutpostRequestContext) throws -> Response {
        let name = c.parameters.get("backup") ?? ""
        guard let found = try configured().listed().first(where: { $0.name == name }) else {
            throw ArcGISError(kind: .notFound, message: "Backup not found.", details: ["No backup named '\(name)'."])
        }
        return RESTResponse.json(found.manifest.json, parameters: c.form.parameters)
    }
}

/// One backup at a time per process: a second request waits for the first.
enum BackupsTaking {
    private static let lock = NSLock()

    static func one(_ take: @Sendable () throws -> BackupManifest) throws -> BackupManifest {
        lock.lock()
        defer { lock.unlock() }
        return try take()
    }
}
