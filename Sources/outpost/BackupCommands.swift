import ArgumentParser
import Foundation
import OutpostSpatiaLite
import OutpostStorage

/// `outpost backup OUT`: an online backup of the data folder, taken while a server runs
/// (docs/operations.md, "Backups").
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Back up a data folder while it serves: one consistent snapshot, its files and a manifest with checksums.")
    @Argument(help: "The folder backups go into; each backup is a folder in it named by its time.") var output: String
    @OptionGroup var location: StoreLocation
    @Option(name: .long, help: "Keep only the newest N backups in the folder.") var keep: Int?

    func validate() throws {
        if let keep, keep < 1 { throw ValidationError("--keep must be at least 1.") }
        if location.database != nil {
            throw ValidationError(
                "A PostgreSQL database is backed up with pg_basebackup (or pg_dump: read docs/operations.md, \"PostgreSQL\", before restoring one), with its object store."
            )
        }
    }

    func run() async throws {
        let (folder, manifest) = try SpatiaLiteBackup.backup(data: location.data, into: output, keep: keep)
        let bytes = manifest.files.reduce(0) { $0 + $1.size }
        print(
            "\(folder): generation \(manifest.generation) of store \(manifest.store.id) (epoch \(manifest.store.epoch)), \(manifest.files.count) files, \(bytes) bytes"
        )
    }
}

/// `outpost restore BACKUP --data DIR`: a backup into a new data folder, checked first.
/// Given the folder `outpost backup` wrote into, it lists the backups there, newest first,
/// and restores the newest with `--latest`.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a backup into a new data folder: checksums verified, migrations run, the restore counted in the store's epoch.")
    @Argument(help: "A backup folder (one holding manifest.json), or the folder `outpost backup` was given (then name one, or --latest).")
    var backup: String
    @Option(name: .long, help: "The data folder to create; it must not hold data.") var data: String
    @Flag(name: .long, help: "BACKUP is the folder `outpost backup` was given: restore the newest backup in it.") var latest = false

    func run() async throws {
        let chosen = try SpatiaLiteBackup.chooseBackup(backup, latest: latest)
        if chosen != backup { print("restoring the newest backup in \(backup): \(chosen)") }
        let (manifest, identity) = try SpatiaLiteBackup.restore(chosen, into: data)
        print("\(data): restored generation \(manifest.generation) of store \(identity.id), now epoch \(identity.epoch)")
        print("Devices that synced after the backup are told so on their next sync (docs/operations.md, \"After a restore\").")
    }
}
