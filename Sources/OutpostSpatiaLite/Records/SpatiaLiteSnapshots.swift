import Foundation
import GRDB
import OutpostStorage

/// Snapshots of the embedded store (`StateSnapshots`): the database copied with SQLite's online
/// backup API into `<data>/snapshots/<name>/store.sqlite` and the data folder's files linked
/// beside it (`SnapshotFiles`). Both happen on the writer connection, so no write commits
/// between the rows and the files; a restore copies the saved database back over the live
/// one through the same connection — one write, which readers in WAL see whole once it
/// commits — and swaps the folders before it lets go.
public struct SpatiaLiteSnapshots: StateSnapshots, StoreRepository {
    public let database: StoreDatabase
    static let backend = "spatialite"
    static let databaseFile = "store.sqlite"

    var shelf: SnapshotShelf { SnapshotShelf(data: directory) }

    public func save(_ name: SnapshotName) throws -> SnapshotInfo {
        let shelf = shelf
        let partial = try shelf.makePartial(name)
        do {
            var configuration = Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF") }
            let copy = try DatabaseQueue(path: (partial as NSString).appendingPathComponent(Self.databaseFile), configuration: configuration)
            let created = clock.milliseconds()
            try pool.writeWithoutTransaction { live in
                try copy.writeWithoutTransaction { target in try live.backup(to: target) }
                try SnapshotFiles.save(data: directory, into: (partial as NSString).appendingPathComponent(SnapshotShelf.filesFolder))
            }
            try copy.close()
            try shelf.publish(partial, name: name, backend: Self.backend, created: created)
            return SnapshotInfo(name: name.text, created: created, bytes: SnapshotFiles.size(of: shelf.folder(of: name)))
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }

    public func restore(_ name: SnapshotName) throws {
        try restore(folder: try shelf.existing(name))
    }

    public func restore(folder: String) throws {
        guard let facts = SnapshotShelf.describe(folder) else { throw SnapshotError.notFound(folder) }
        guard facts.backend == Self.backend else {
            throw SnapshotError.unsupported("\(folder) is a snapshot of the \(facts.backend) backend, not of SpatiaLite")
        }
        let staged = try SnapshotFiles.stage((folder as NSString).appendingPathComponent(SnapshotShelf.filesFolder), into: directory)
        defer { staged.discard() }
        var configuration = Configuration()
        configuration.readonly = true
        // Read only: the saved snapshot stays as saved, for the next restore.
        let saved = try DatabaseQueue(path: (folder as NSString).appendingPathComponent(Self.databaseFile), configuration: configuration)
        defer { try? saved.close() }
        try pool.writeWithoutTransaction { live in
            try saved.read { source in try source.backup(to: live) }
            live.clearSchemaCache()
            try staged.swap()
        }
        pool.invalidateReadOnlyConnections()
        try database.reloadCatalog()
    }

    public func list() throws -> [SnapshotInfo] { shelf.list() }

    public func delete(_ name: SnapshotName) throws { try shelf.delete(name) }
}

extension SpatiaLiteBackend {
    public var snapshots: SpatiaLiteSnapshots { SpatiaLiteSnapshots(database: database) }
}
