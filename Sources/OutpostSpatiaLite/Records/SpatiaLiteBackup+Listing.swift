import Foundation
import OutpostStorage
import OutpostWire

/// One backup in the folder `outpost backup OUT` was given.
public struct ListedBackup: Sendable, Equatable {
    public var path: String
    /// The manifest, or why it cannot be read (a restore of it says the same).
    public var manifest: Result<BackupManifest, BackupFailure>

    /// `path  2026-11-26 08:37:59 UTC  generation 42`, as a restore lists it; control
    /// characters in a name are shown escaped, so a folder's name cannot drive the terminal.
    public var summary: String {
        let shown = Self.printable(path)
        switch manifest {
        case .success(let manifest): return "\(shown)  \(Self.time(manifest.createdAt))  generation \(manifest.generation)"
        case .failure(let failure): return "\(shown)  (unreadable: \(Self.printable(failure.description)))"
        }
    }

    /// `text` with every control character as `\u{…}`.
    static func printable(_ text: String) -> String {
        String(
            text.unicodeScalars.flatMap { scalar in
                scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
                    ? Array("\\u{\(String(scalar.value, radix: 16))}".unicodeScalars) : [scalar]
            }.map(Character.init))
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
        "\(ListedBackup.printable(folder)) holds \(backups.count) backup\(backups.count == 1 ? "" : "s"), not one: name one, or add --latest for the newest.\n"
            + backups.map { "  " + $0.summary }.joined(separator: "\n")
    }
}

extension SpatiaLiteBackup {
    /// The backups in `directory` (folders named `outpost-backup-…` holding a manifest, as
    /// `--keep` counts them), newest first by their manifests' time; those whose manifest
    /// cannot be read last, with the reason.
    public static func backups(in directory: String) -> [ListedBackup] {
        let manager = FileManager.default
        let names = ((try? manager.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasPrefix(BackupRotation.prefix) }
        let listed = names.compactMap { name -> ListedBackup? in
            let path = (directory as NSString).appendingPathComponent(name)
            do throws(BackupFailure) {
                return ListedBackup(path: path, manifest: .success(try BackupManifest.load(folder: path)))
            } catch {
                if case .notABackup = error { return nil }
                return ListedBackup(path: path, manifest: .failure(error))
            }
        }
        return listed.sorted { a, b in
            switch (a.manifest, b.manifest) {
            case (.success(let x), .success(let y)): x.createdAt != y.createdAt ? x.createdAt > y.createdAt : a.path > b.path
            case (.success, .failure): true
            case (.failure, .success): false
            case (.failure, .failure): a.path > b.path
            }
        }
    }

    /// The backup a restore of `path` means: `path` itself when it is one; when it is the
    /// folder backups were written into, its newest with `latest`, else an error listing them.
    /// Anything else is `path`, for the restore to refuse as no backup.
    public static func chooseBackup(_ path: String, latest: Bool) throws(BackupChoiceNeeded) -> String {
        guard !FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(BackupManifest.fileName)) else { return path }
        let found = backups(in: path)
        guard !found.isEmpty else { return path }
        guard latest, let newest = found.first(where: { (try? $0.manifest.get()) != nil }) else {
            throw BackupChoiceNeeded(folder: path, backups: found)
        }
        return newest.path
    }
}
