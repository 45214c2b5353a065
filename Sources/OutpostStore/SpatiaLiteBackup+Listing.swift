import Foundation
import OutpostStorage
import OutpostWire

/// One backup in the folder `outpost backup OUT` was given.
public struct ListedBackup: Sendable, Equatable {
    public var path: String
    /// Nil when its manifest cannot be read (a restore of it says why).
    public var manifest: BackupManifest?

    /// `path  2026-11-26 08:37:59 UTC  generation 42`, as a restore lists it.
    public var summary: String {
        guard let manifest else { return "\(path)  (manifest unreadable)" }
        return "\(path)  \(Self.time(manifest.createdAt))  generation \(manifest.generation)"
    }

    static func time(_ milliseconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

/// A restore given the folder of backups rather than one of them, without `--latest`.
public struct BackupChoiceNeeded: Error, Equatable, CustomStringConvertible {
    public var folder: String
    public var backups: [ListedBackup]

    public var description: String {
        "\(folder) holds \(backups.count) backup\(backups.count == 1 ? "" : "s"), not one: name one, or add --latest for the newest.\n"
            + backups.map { "  " + $0.summary }.joined(separator: "\n")
    }
}

extension SpatiaLiteBackup {
    /// The complete backups in `directory` (folders named `outpost-backup-…` holding a
    /// manifest, as `--keep` counts them), newest first: their names begin with their UTC time.
    public static func backups(in directory: String) -> [ListedBackup] {
        let manager = FileManager.default
        let names = ((try? manager.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(BackupRotation.prefix) }
        return names.sorted(by: >).compactMap { name in
            let path = (directory as NSString).appendingPathComponent(name)
            guard let bytes = manager.contents(atPath: (path as NSString).appendingPathComponent(BackupManifest.fileName)) else { return nil }
            let manifest = try? JSONParser.parse(String(decoding: bytes, as: UTF8.self))
            return ListedBackup(path: path, manifest: manifest.flatMap { try? BackupManifest(json: $0) })
        }
    }

    /// The backup a restore of `path` means: `path` itself when it is one; when it is the
    /// folder backups were written into, its newest with `latest`, else an error listing them.
    /// Anything else is `path`, for the restore to refuse as no backup.
    public static func chooseBackup(_ path: String, latest: Bool) throws(BackupChoiceNeeded) -> String {
        guard !FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(BackupManifest.fileName)) else { return path }
        let found = backups(in: path)
        guard let newest = found.first else { return path }
        guard latest else { throw BackupChoiceNeeded(folder: path, backups: found) }
        return newest.path
    }
}
