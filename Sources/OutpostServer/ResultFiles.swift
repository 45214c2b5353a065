import Foundation
import OutpostSync
import OutpostWire
import Synchronization

/// Result files of jobs and requests, under `<data>/replicafiles/`: replica files and sync
/// answers, served at `/arcgis/rest/services/<service>/replicafiles/<name>` (a sibling of
/// `FeatureServer`, as on ArcGIS Server), and tile packages, served from the export's output
/// folder (`/arcgis/rest/directories/arcgisoutput/<job>/<package>`).
///
/// A file is written under a temporary name and renamed into place when complete, so a
/// download never sees half a file. Files expire after `idleTime` without a download (ArcGIS's
/// default is ten minutes, §7.1); `sweep` removes them and runs periodically. The idle clock
/// is the file's modification time, set from the injected clock when the file is published
/// and each time it is opened, so it starts when the file can first be downloaded (not when
/// the job began writing it) and tests can move it on without waiting.
public struct ResultFiles: Sendable {
    public let directory: String
    public let idleTime: TimeInterval
    let clock: any WallClock

    public init(directory: String, idleTime: TimeInterval, clock: any WallClock = SystemClock()) {
        self.directory = directory
        self.idleTime = idleTime
        self.clock = clock
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
    static let contentTypes = [
        "json": "application/json; charset=utf-8", "gpkg": "application/geopackage+sqlite3", "tpkx": "application/zip",
        "mbtiles": "application/vnd.sqlite3",
    ]

    public func path(of name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    /// A path to write a result to before it is published with `publish`.
    public func temporaryPath(for name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return path(of: ".tmp-\(name)")
    }

    /// Moves a complete temporary file into place; its idle clock starts now.
    public func publish(_ name: String) throws {
        try FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: path(of: ".tmp-\(name)"))
        try FileManager.default.moveItem(atPath: path(of: ".tmp-\(name)"), toPath: path(of: name))
    }

    public func discard(_ name: String) {
        try? FileManager.default.removeItem(atPath: path(of: ".tmp-\(name)"))
        try? FileManager.default.removeItem(atPath: path(of: name))
    }

    /// Whether a published file is there and not expired (its idle clock left as it is).
    public func exists(_ name: String, now: Date? = nil) -> Bool {
        let now = now ?? self.now
        guard Self.isValidName(name), let attributes = try? FileManager.default.attributesOfItem(atPath: path(of: name)),
            let modified = attributes[.modificationDate] as? Date
        else { return false }
        return now.timeIntervalSince(modified) <= idleTime
    }

    /// The published file to serve, its idle clock restarted; nil when unknown or expired.
    public func open(_ name: String, now: Date? = nil) -> String? {
        let now = now ?? self.now
        guard exists(name, now: now) else { return nil }
        let file = path(of: name)
        try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: file)
        return file
    }

    /// Sweeps at most once a minute (called on replica activity: no background task needed,
    /// and `open` refuses expired files whether or not they were swept yet).
    /// Returns the names removed.
    @discardableResult
    public func sweepIfDue(now: Date? = nil) -> [String] {
        let now = now ?? self.now
        let due = Self.lastSweep.withLock { last -> Bool in
            guard now.timeIntervalSince(last[directory] ?? .distantPast) >= 60 else { return false }
            last[directory] = now
            return true
        }
        return due ? sweep(now: now) : []
    }

    private static let lastSweep = Mutex<[String: Date]>([:])

    /// Removes files idle for longer than `idleTime`, and temporary files a crash left
    /// behind; returns the names removed.
    @discardableResult
    public func sweep(now: Date? = nil) -> [String] {
        let now = now ?? self.now
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var removed: [String] = []
        for name in names {
            let file = path(of: name)
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date else { continue }
            // Temporary files of a running export are young; older ones belong to a dead process.
            let limit = name.hasPrefix(".tmp-") ? max(idleTime, 6 * 3600) : idleTime
            if now.timeIntervalSince(modified) > limit {
                try? FileManager.default.removeItem(atPath: file)
                removed.append(name)
            }
        }
        return removed
    }
}
