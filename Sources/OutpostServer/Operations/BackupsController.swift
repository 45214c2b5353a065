import Foundation
import Hummingbird
import NIOCore
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
        routes.read("rest/admin/backups/:backup/download") { _, c in try download(c) }
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

    private func named(_ c: OutpostRequestContext) throws -> (name: String, manifest: BackupManifest) {
        let name = c.parameters.get("backup") ?? ""
        guard let found = try configured().listed().first(where: { $0.name == name }) else {
            throw ArcGISError(kind: .notFound, message: "Backup not found.", details: ["No backup named '\(name)'."])
        }
        return found
    }

    private func manifest(_ c: OutpostRequestContext) throws -> Response {
        RESTResponse.json(try named(c).manifest.json, parameters: c.form.parameters)
    }

    /// The backup as one tar archive of its folder (`<name>/manifest.json`, then its files),
    /// streamed as it is read; `tar -xf` then `outpost restore <name>` restores it.
    private func download(_ c: OutpostRequestContext) throws -> Response {
        let (name, manifest) = try named(c)
        let folder = (try configured().directory as NSString).appendingPathComponent(name)
        let entries = try ([BackupManifest.fileName] + manifest.files.map(\.path)).map { relative -> (path: String, file: String, size: Int64) in
            let file = (folder as NSString).appendingPathComponent(relative)
            let size = ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.int64Value
            guard let size else { throw ArcGISError.internalError("The backup '\(name)' lacks \(relative).") }
            return (relative, file, size)
        }
        let headers = try entries.map { entry in
            do { return try TarHeader(path: "\(name)/\(entry.path)", size: entry.size, modified: manifest.createdAt / 1000) } catch {
                throw ArcGISError.internalError("The backup's file \(entry.path) cannot be put in a tar archive.")
            }
        }
        let length = TarHeader.archiveLength(entries.map(\.size))
        let body = ResponseBody(contentLength: Int(length)) { writer in
            for (entry, header) in zip(entries, headers) {
                try await writer.write(ByteBuffer(bytes: header.bytes))
                guard let handle = FileHandle(forReadingAtPath: entry.file) else { throw ArcGISError.internalError("\(entry.path) went away.") }
                defer { try? handle.close() }
                var left = entry.size
                while left > 0, let data = try handle.read(upToCount: Int(min(left, 1 << 16))), !data.isEmpty {
                    left -= Int64(data.count)
                    try await writer.write(ByteBuffer(bytes: data))
                }
                // A file that shrank since it was measured is padded: the archive keeps its length.
                if left > 0 { try await writer.write(ByteBuffer(repeating: 0, count: Int(left))) }
                try await writer.write(ByteBuffer(bytes: TarHeader.padding(after: entry.size)))
            }
            try await writer.write(ByteBuffer(bytes: TarHeader.end))
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/x-tar", .contentDisposition: "attachment; filename=\"\(name).tar\"", .cacheControl: "no-store"],
            body: body)
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
