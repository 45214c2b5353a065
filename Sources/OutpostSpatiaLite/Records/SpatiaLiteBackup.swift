import Foundation
import GRDB
import OutpostStorage
import OutpostSync
import OutpostWire

/// Online backups of a data folder and their restore (docs/operations.md, "Backups").
///
/// A backup is one consistent snapshot of the database, taken with SQLite's online backup
/// API inside one read transaction (WAL: writers go on meanwhile), plus the files that
/// snapshot refers to: attachment files, portal item folders and tile sets. Files are only
/// ever added while a server runs (the orphan sweep runs at start-up), so every file the
/// snapshot names is there to copy. The manifest, written last, lists each file's checksum;
/// everything is flushed to disk before the folder takes its final name.
public enum SpatiaLiteBackup {
    /// Writes a backup of the data folder `data` into a new folder inside `directory`, named
    /// by its time; with `keep`, then removes all but the newest `keep` backups there.
    public static func backup(
        data: String, into directory: String, keep: Int? = nil, clock: any WallClock = SystemClock()
    ) throws -> (
        folder: String, manifest: BackupManifest
    ) {
        let source = (data as NSString).appendingPathComponent(StoreDatabase.fileName)
        guard FileManager.default.fileExists(atPath: source) else { throw BackupFailure.unsupported("\(data) holds no Outpost data") }
        let manager = FileManager.default
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let createdAt = clock.milliseconds()
        let name = BackupRotation.name(at: createdAt)
        let partial = (directory as NSString).appendingPathComponent(".partial-\(name)")
        try? manager.removeItem(atPath: partial)
        try manager.createDirectory(atPath: partial, withIntermediateDirectories: true)
        do {
            let snapshot = (partial as NSString).appendingPathComponent(StoreDatabase.fileName)
            try copySnapshot(of: source, to: snapshot)
            let facts = try snapshotFacts(snapshot)
            var copied = [StoreDatabase.fileName]
            for path in facts.attachmentFiles {
                try copy(path, from: data, to: partial)
                copied.append(path)
            }
            for folder in ["items", "tiles"] {
                for path in files(under: folder, in: data) {
                    try copy(path, from: data, to: partial)
                    copied.append(path)
                }
            }
            var listed: [BackupManifest.File] = []
            for path in copied {
                let digest = try BackupManifest.digest(ofOwnFileAt: (partial as NSString).appendingPathComponent(path))
                listed.append(BackupManifest.File(path: path, size: digest.size, sha256: digest.sha256))
            }
            let manifest = BackupManifest(
                createdAt: createdAt, store: facts.identity, generation: facts.generation, migrations: facts.migrations, files: listed)
            try Data(manifest.json.jsonText.utf8).write(
                to: URL(fileURLWithPath: (partial as NSString).appendingPathComponent(BackupManifest.fileName)), options: .atomic)
            try flushToDisk(copied + [BackupManifest.fileName], in: partial)
            let folder = (directory as NSString).appendingPathComponent(name)
            try manager.moveItem(atPath: partial, toPath: folder)
            do { try DurableFiles.sync(directory) } catch { throw BackupFailure(error) }
            if let keep {
                let names = (try? manager.contentsOfDirectory(atPath: directory)) ?? []
                for expired in BackupRotation.expired(names, keep: keep) {
                    let path = (directory as NSString).appendingPathComponent(expired)
                    if manager.fileExists(atPath: (path as NSString).appendingPathComponent(BackupManifest.fileName)) {
                        try manager.removeItem(atPath: path)
                    }
                }
            }
            return (folder, manifest)
        } catch {
            try? manager.removeItem(atPath: partial)
            throw error
        }
    }

    /// Restores the backup at `backup` into `data`, which must not hold data yet: checks every
    /// file against the manifest, copies them into a folder beside `data`, opens the store
    /// there (running this version's migrations), checks the database's integrity and counts
    /// the restore in the store's epoch, flushes it all to disk, then renames the folder into
    /// place. A failure at any step leaves `data` as it was.
    public static func restore(
        _ backup: String, into data: String, clock: any WallClock = SystemClock()
    ) throws -> (
        manifest: BackupManifest, identity: StoreIdentity
    ) {
        let manager = FileManager.default
        let manifest = try BackupManifest.load(folder: backup)
        try manifest.verify(folder: backup)
        // Only an absent or empty folder is restored into: a file or link named by mistake is
        // never removed to make room.
        var status = stat()
        let exists = lstat(data, &status) == 0
        if exists {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw BackupFailure.notAFolder(data) }
            guard ((try? manager.contentsOfDirectory(atPath: data)) ?? ["?"]).isEmpty else { throw BackupFailure.liveFolder(data) }
        }
        let staging = "\(data).restoring-\(UUID().uuidString)"
        try manager.createDirectory(atPath: staging, withIntermediateDirectories: true)
        do {
            for file in manifest.files { try copy(file.path, from: backup, to: staging) }
            let identity = try openRestored(staging, manifest: manifest, clock: clock)
            try flushToDisk(manifest.files.map(\.path), in: staging)
            // The empty folder checked above (rmdir removes nothing else).
            if exists, rmdir(data) != 0 { throw BackupFailure.liveFolder(data) }
            try manager.moveItem(atPath: staging, toPath: data)
            do { try DurableFiles.syncFolders(of: data, upTo: (data as NSString).deletingLastPathComponent) } catch { throw BackupFailure(error) }
            return (manifest, identity)
        } catch {
            try? manager.removeItem(atPath: staging)
            throw error
        }
    }

    /// Opens the restored folder (migrations run), checks it, counts the restore; the store is
    /// closed again when this returns.
    private static func openRestored(_ folder: String, manifest: BackupManifest, clock: any WallClock) throws -> StoreIdentity {
        let store = try SpatiaLiteBackend(dataDirectory: folder, clock: clock)
        let report = try store.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        guard report == ["ok"] else { throw BackupFailure.integrity(report.joined(separator: "; ")) }
        return try store.recordRestore(of: manifest)
    }

    /// Pages copied per backup step: 2 MiB of 4 KiB pages. Each commit of the server flushes
    /// the WAL, and a flush waits behind the backup's writes in flight: bigger steps copy
    /// faster and stall the clients more (bench/backup.py, docs/operations.md "Backups": 8 MiB
    /// steps 1.1x the idle copy's time with the clients' p99 at 4.4x, 2 MiB 1.3x and 1.9x,
    /// 1 MiB 1.7x and 1.4x).
    static let pagesPerStep: CInt = 512

    /// Copies the database in steps of `pagesPerStep`, all inside one read transaction (so one
    /// snapshot, and no restart when the server commits meanwhile). Each step's writes are
    /// flushed while the next step copies (`BackupFlusher`): the server's commits, which wait
    /// for their own flushes, never queue behind more than two steps' worth. The source is read
    /// through a memory map rather than a `pread` per page; the copy is a new file of the
    /// backup's own, flushed here and removed on failure, so it needs neither a rollback
    /// journal nor SQLite's syncs (docs/operations.md, "Backups").
    static func copySnapshot(of source: String, to path: String, pagesPerStep: CInt = pagesPerStep) throws {
        var sourceConfiguration = Configuration()
        sourceConfiguration.busyMode = .timeout(30)
        let size = (try? FileManager.default.attributesOfItem(atPath: source)[.size] as? Int) ?? 0
        sourceConfiguration.prepareDatabase { db in try db.execute(sql: "PRAGMA mmap_size = \(size)") }
        let live = try DatabasePool(path: source, configuration: sourceConfiguration)
        defer { try? live.close() }
        var destinationConfiguration = Configuration()
        destinationConfiguration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF") }
        let destination = try DatabaseQueue(path: path, configuration: destinationConfiguration)
        let flusher = try BackupFlusher(path: path)
        try live.backup(to: destination, pagesPerStep: pagesPerStep) { _ in flusher.stepWritten() }
        try destination.close()
        try flusher.finish()
    }

    /// Flushes every file of a backup and every folder holding one, deepest first, before the
    /// backup is named complete: a backup that said it was done survives a power loss.
    static func flushToDisk(_ paths: [String], in root: String) throws(BackupFailure) {
        var folders: Set<String> = [""]
        for path in paths {
            var folder = (path as NSString).deletingLastPathComponent
            while !folder.isEmpty, folders.insert(folder).inserted { folder = (folder as NSString).deletingLastPathComponent }
        }
        let deepestFirst = folders.sorted { ($0.split(separator: "/").count, $0) > ($1.split(separator: "/").count, $1) }
        do {
            for path in paths + deepestFirst { try DurableFiles.sync((root as NSString).appendingPathComponent(path)) }
        } catch {
            throw BackupFailure(error)
        }
    }

    /// What a backup needs to know of its snapshot, read from the copy itself.
    struct SnapshotFacts {
        var identity: StoreIdentity
        var generation: Int64
        var migrations: [String]
        var attachmentFiles: [String]
    }

    static func snapshotFacts(_ path: String) throws -> SnapshotFacts {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            // A folder last served by a version before `v17-store-identity` has none yet.
            let identity =
                try db.tableExists("outpost_store_identity")
                ? try Row.fetchOne(db, sql: "SELECT store_id, epoch FROM outpost_store_identity").map { StoreIdentity(id: $0[0], epoch: $0[1]) }
                : nil
            var attachments: [String] = []
            for table in try String.fetchAll(db, sql: "SELECT table_name FROM outpost_layers WHERE has_attachments") {
                attachments += try String.fetchAll(
                    db, sql: "SELECT DATA_PATH FROM \("\(table)__attach".quotedDatabaseIdentifier) WHERE DATA_PATH IS NOT NULL")
            }
            return SnapshotFacts(
                identity: identity ?? StoreIdentity(id: "", epoch: 0),
                generation: try Int64.fetchOne(db, sql: "SELECT coalesce(max(generation), 0) FROM outpost_generations") ?? 0,
                migrations: try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"),
                attachmentFiles: Array(Set(attachments)).sorted())
        }
    }

    /// Every regular file under `folder` of `root`, as paths relative to `root`.
    static func files(under folder: String, in root: String) -> [String] {
        let base = (root as NSString).appendingPathComponent(folder)
        guard let enumerator = FileManager.default.enumerator(atPath: base) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: (base as NSString).appendingPathComponent(relative), isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                found.append("\(folder)/\(relative)")
            }
        }
        return found.sorted()
    }

    private static func copy(_ path: String, from source: String, to target: String) throws {
        try BackupManifest.checkPlain(path, in: source)
        let destination = (target as NSString).appendingPathComponent(path)
        try FileManager.default.createDirectory(atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: (source as NSString).appendingPathComponent(path), toPath: destination)
    }
}

extension SpatiaLiteBackend {
    /// The store's identity and restore epoch.
    public func identity() throws -> StoreIdentity {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT store_id, epoch FROM outpost_store_identity") else {
                throw StoreError.invalidSchema("the store has no identity")
            }
            return StoreIdentity(id: row[0], epoch: row[1])
        }
    }

    /// Counts a restore of `manifest`'s backup: the epoch goes up by one, and when and from
    /// which snapshot it was restored are kept.
    func recordRestore(of manifest: BackupManifest) throws -> StoreIdentity {
        let now = clock.milliseconds()
        try write { db in
            try db.execute(
                sql: "UPDATE outpost_store_identity SET epoch = epoch + 1, restored_at = ?, restored_from = ?, restored_generation = ?",
                arguments: [now, manifest.createdAt, manifest.generation])
        }
        return try identity()
    }
}
