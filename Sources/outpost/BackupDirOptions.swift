import ArgumentParser
import Foundation
import OutpostServer
import OutpostSpatiaLite
import OutpostSync

/// `serve --backup-dir DIR [--backup-keep N]`: where the server's own backups go, taken from
/// the home's organisation page or `POST /arcgis/rest/admin/backups/create` (docs/operations.md,
/// "Backups from the server"). Also from the environment and the config file.
struct BackupDirOptions: ParsableArguments {
    @Option(name: .long, help: "The folder the server's own backups go into (an admin takes one from the home or the admin API).")
    var backupDir: String?
    @Option(name: .long, help: "With --backup-dir: keep only the newest N backups there.") var backupKeep: Int?

    struct Resolved {
        var directory: String?
        var keep: Int?
    }

    func resolve(_ layers: inout LayeredSettings) throws -> Resolved {
        let directory = try layers.optionalString("backup-dir", backupDir)
        let keep = try layers.optionalString("backup-keep", backupKeep.map(String.init)).map { text -> Int in
            guard let keep = Int(text), keep >= 1 else { throw ValidationError("backup-keep must be at least 1.") }
            return keep
        }
        if keep != nil, directory == nil { throw ValidationError("backup-keep goes with backup-dir.") }
        return Resolved(directory: directory, keep: keep)
    }

    /// The server's backups: SpatiaLite's online backup of `data`; on PostgreSQL (`database`)
    /// listed but not taken.
    static func backups(_ resolved: Resolved, data: String, database: String?, clock: any WallClock) -> ServerBackups? {
        guard let directory = resolved.directory else { return nil }
        guard database == nil else { return ServerBackups(directory: directory, take: nil) }
        let keep = resolved.keep
        return ServerBackups(directory: directory) {
            try SpatiaLiteBackup.backup(data: data, into: directory, keep: keep, clock: clock).manifest
        }
    }
}
