import Foundation
import OutpostStorage

/// Where a server's own backups go and how one is taken (`serve --backup-dir`): the composition
/// root gives the backend's online backup (SpatiaLite's; PostgreSQL is backed up with its own
/// tools, so `take` is nil there and the routes say so).
public struct ServerBackups: Sendable {
    /// The folder backups are written into, each a folder named by its time.
    public var directory: String
    /// Writes a backup into `directory` (keeping as many as the setting says) and answers its manifest.
    public var take: (@Sendable () throws -> BackupManifest)?

    public init(directory: String, take: (@Sendable () throws -> BackupManifest)?) {
        self.directory = directory
        self.take = take
    }

    /// The backups in `directory`, newest first: their folder names and manifests (a folder
    /// whose manifest cannot be read is left out).
    public func listed() -> [(name: String, manifest: BackupManifest)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { !$0.hasPrefix(".") }.compactMap { name -> (String, BackupManifest)? in
            let folder = (directory as NSString).appendingPathComponent(name)
            guard let manifest = try? BackupManifest.load(folder: folder) else { return nil }
            return (name, manifest)
        }
        .sorted { $0.1.createdAt != $1.1.createdAt ? $0.1.createdAt > $1.1.createdAt : $0.0 > $1.0 }
    }
}
