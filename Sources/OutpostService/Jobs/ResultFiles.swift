import Foundation
import OutpostStorage
import OutpostSync
import OutpostWire
import Synchronization

/// Result files of jobs and requests, objects `replicafiles/<name>` of the blob store (files
/// of `<data>/replicafiles/` by default): replica files and sync answers, served at
/// `/arcgis/rest/services/<service>/replicafiles/<name>` (a sibling of `FeatureServer`, as on
/// ArcGIS Server), and tile packages, served from the export's output folder
/// (`/arcgis/rest/directories/arcgisoutput/<job>/<package>`).
///
/// A file is written under a temporary name in this process's `workDirectory` and put in the
/// store when complete, so a download never sees half a file. Files expire after `idleTime`
/// without a download (ArcGIS's default is ten minutes, §7.1); `sweep` removes them and runs
/// periodically. The idle clock is the object's modification time, set when the file is
/// published and each time it is opened (`BlobStore.touch`), so it starts when the file can
/// first be downloaded (not when the job began writing it). A folder takes the injected
/// clock's time, so tests can move it on without waiting; an object store stamps its own.
public struct ResultFiles: Sendable {
    public let blobs: BlobFiles
    public let workDirectory: String
    public let idleTime: TimeInterval
    let clock: any WallClock

    public init(blobs: BlobFiles, workDirectory: String, idleTime: TimeInterval, clock: any WallClock = SystemClock()) {
        self.blobs = blobs
        self.workDirectory = workDirectory
        self.idleTime = idleTime
        self.clock = clock
    }

    /// A backend's result files: in its blob store, written under its data folder's `replicafiles/`.
    public init(of store: some OutpostBackend, idleTime: TimeInterval) {
        self.init(
            blobs: store.blobs, workDirectory: (store.directory as NSString).appendingPathComponent("replicafiles"), idleTime: idleTime,
            clock: store.clock)
    }

    private var now: Date { Date(timeIntervalSince1970: TimeInterval(clock.milliseconds()) / 1000) }

    /// A fresh name: 32 hex digits and the format's extension.
    public static func newName(extension ext: String) -> String {
        let hex = GlobalID.make().filter { $0.isHexDigit }.lowercased()
        return "\(hex).\(ext)"
    }

    /// Only names Outpost makes are served: no path can leave the folder.
    public static func isValidName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].count == 32 && parts[0].allSatisfy { $0.isHexDigit && !$0.isUppercase }
            && contentTypes.keys.contains(String(parts[1]))
    }

    /// What each kind of result file is served as.
    public static let contentTypes = [
        "json": "application/json; charset=utf-8", "gpkg": "application/geopackage+sqlite3", "tpkx": "application/zip",
        "mbtiles": "application/vnd.sqlite3",
    ]

    static let prefix = "replicafiles/"
    static func key(_ name: String) -> String { prefix + name }

    /// A file with a published result's bytes (a cached copy of an object store's).
    public func file(_ name: String) throws -> String { try blobs.file(Self.key(name)) }

    /// Moves a published file out of the store to `path` (a rename in a folder).
    public func take(_ name: String, to path: String) throws {
        if let local = try blobs.store.localPath(Self.key(name)) {
            try FileManager.default.moveItem(atPath: local, toPath: path)
        } else {
            try blobs.copy(Self.key(name), to: path)
            discard(name)
        }
    }

    /// A path to write a result to before it is published with `publish`.
    public func temporaryPath(for name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        return (workDirectory as NSString).appendingPathComponent(".tmp-\(name)")
    }

    /// Puts a complete temporary file in the store; its idle clock starts now (a folder's by
    /// the injected clock; an object store stamps the put with its own).
    public func publish(_ name: String) throws {
        try blobs.store.put(Self.key(name), from: try temporaryPath(for: name), ifAbsent: false)
        if !blobs.isRemote { try blobs.store.touch(Self.key(name), modified: clock.milliseconds()) }
    }

    /// Removes published files by name (a deleted service's); a missing one is no error.
    public func remove(_ names: some Sequence<String>) {
        for name in names where Self.isValidName(name) { try? blobs.delete(Self.key(name)) }
    }

    public func discard(_ name: String) {
        if let temporary = try? temporaryPath(for: name) { try? FileManager.default.removeItem(atPath: temporary) }
        try? blobs.delete(Self.key(name))
    }

    /// Whether a published file is there and not expired (its idle clock left as it is).
    public func exists(_ name: String, now: Date? = nil) -> Bool {
        guard Self.isValidName(name), let info = try? blobs.store.info(Self.key(name)) else { return false }
        return !isIdle(info, now: now ?? self.now)
    }

    private func isIdle(_ info: BlobInfo, now: Date) -> Bool {
        now.timeIntervalSince(Date(timeIntervalSince1970: TimeInterval(info.modified) / 1000)) > idleTime
    }

    /// The published file to serve, its idle clock restarted; nil when unknown or expired.
    public func open(_ name: String, now: Date? = nil) -> String? {
        let now = now ?? self.now
        guard exists(name, now: now) else { return nil }
        try? blobs.store.touch(Self.key(name), modified: Int64(now.timeIntervalSince1970 * 1000))
        return try? file(name)
    }

    /// Bytes of live result files recorded for `owner`: what a per-user quota counts.
    public func bytesHeld(by owner: String, registry: some ResultFileRegistry, now: Date? = nil) throws -> Int64 {
        let now = now ?? self.now
        var total: Int64 = 0
        for name in try registry.resultFiles(ownedBy: owner) {
            guard let info = try? blobs.store.info(Self.key(name)), !isIdle(info, now: now) else { continue }
            total += info.size
        }
        return total
    }

    /// Refuses a new result for `owner` while the live results they hold reach `quota` bytes
    /// (0: no quota): HTTP 429 in the ArcGIS error shape, to be retried when some have expired
    /// (docs/reliability.md, "Budgets and quotas"). Checked before a job is admitted, so a
    /// user's jobs in flight (at most `--max-jobs-per-user`) may pass it by their own sizes.
    public func checkQuota(of owner: String, quota: Int64, registry: some ResultFileRegistry) throws {
        guard quota > 0 else { return }
        let held = try bytesHeld(by: owner, registry: registry)
        guard held < quota else {
            throw ArcGISError.tooManyRequests(
                "You hold \(held / 1_048_576) MiB of exports and replica files, your quota of \(quota / 1_048_576) MiB; download or let some expire first.",
                retryAfterSeconds: Int(idleTime))
        }
    }

    /// Sweeps at most once a minute (called on replica activity: no background task needed,
    /// and `open` refuses expired files whether or not they were swept yet).
    /// Returns the names removed.
    @discardableResult
    public func sweepIfDue(now: Date? = nil) -> [String] {
        let now = now ?? self.now
        let due = Self.lastSweep.withLock { last -> Bool in
            guard now.timeIntervalSince(last[workDirectory] ?? .distantPast) >= 60 else { return false }
            last[workDirectory] = now
            return true
        }
        return due ? sweep(now: now) : []
    }

    private static let lastSweep = Mutex<[String: Date]>([:])

    /// Removes files idle for longer than `idleTime`, temporary files a crash left behind, and
    /// cached copies of an object store's files long unused; returns the names removed.
    @discardableResult
    public func sweep(now: Date? = nil) -> [String] {
        let now = now ?? self.now
        var removed: [String] = []
        for info in (try? blobs.store.list(prefix: Self.prefix)) ?? [] where isIdle(info, now: now) {
            try? blobs.delete(info.key)
            removed.append(String(info.key.dropFirst(Self.prefix.count)))
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: workDirectory)) ?? [] where name.hasPrefix(".tmp-") {
            // Temporary files of a running export are young; older ones belong to a dead process.
            let file = (workDirectory as NSString).appendingPathComponent(name)
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > max(idleTime, 6 * 3600)
            else { continue }
            try? FileManager.default.removeItem(atPath: file)
            removed.append(name)
        }
        blobs.sweepCache()
        return removed
    }
}
