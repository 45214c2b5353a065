import ArgumentParser
import Foundation
import OutpostStorage
import OutpostStore

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
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a backup into a new data folder: checksums verified, migrations run, the restore counted in the store's epoch.")
    @Argument(help: "A backup folder (one holding manifest.json).") var backup: String
    @Option(name: .long, help: "The data folder to create; it must not hold data.") var data: String

    func run() async throws {
        let (manifest, identity) = try SpatiaLiteBackup.restore(backup, into: data)
        print("\(data): restored generation \(manifest.generation) of store \(identity.id), now epoch \(identity.epoch)")
        print("Devices that synced after the backup are told so on their next sync (docs/operations.md, \"After a restore\").")
    }
}
