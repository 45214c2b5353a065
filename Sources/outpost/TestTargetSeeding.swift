import ArgumentParser
import Foundation
import Logging
import OutpostStorage

/// `--seed-data DIR`: a snapshot folder saved by the control API (`<data>/snapshots/<name>/`,
/// copied anywhere) restored into the data before the server starts, so every run of a test
/// suite begins from the same state (docs/testing-your-app.md, "Snapshots").
enum TestTargetSeeding {
    static func restore(_ folder: String, into store: some OutpostBackend, logger: Logger) throws {
        guard SnapshotShelf.describe(folder) != nil else {
            throw ValidationError("seed-data: \(folder) is not a snapshot folder (it has no \(SnapshotShelf.descriptionFile))")
        }
        let started = Date()
        do { try store.snapshots.restore(folder: folder) } catch let error as SnapshotError {
            throw ValidationError("seed-data: \(error.description)")
        }
        logger.info("seed data restored from \(folder) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
    }
}
