import Foundation
import OutpostStorage
import OutpostWire
import Synchronization

extension TestTarget {
    /// Saves the `start` snapshot (`POST /_outpost/reset` restores it) once the server's
    /// start-up housekeeping is done, and has every restore empty the tile cache: a tile set
    /// imported or removed after a snapshot must not outlive its restore. Called from
    /// `buildApplication`'s `beforeServerStarts`.
    func prepareSnapshots(store: some OutpostBackend, options: ServerOptions) async throws {
        let cache = options.tileCache
        afterRestore.withLock { $0.append { cache.removeAll() } }
        _ = try await StoreCall.run { try TestTargetSnapshots.serially { try store.snapshots.save(.start) } }
    }

    /// What in memory a restore leaves stale is forgotten (the tile cache). Sessions need
    /// nothing: tokens, grants and keys are rows, restored with the rest.
    func snapshotsRestored() {
        for forget in afterRestore.withLock({ $0 }) { forget() }
    }
}

/// Snapshot operations of test targets: one at a time in a process (a save and a restore of
/// the same name must not interleave their folder moves), on the blocking pool.
enum TestTargetSnapshots {
    private static let serial = Mutex(())

    /// Runs `work` (on the blocking pool: the caller's `StoreCall.run`) after every other
    /// snapshot operation of the process; a snapshot's refusal as the control API answers it.
    static func serially<T>(_ work: () throws -> T) throws -> T {
        do {
            return try serial.withLock { _ in try work() }
        } catch let error as SnapshotError {
            throw error.arcGISError
        }
    }
}

extension SnapshotError {
    /// As the control API answers it: a bad name or a store that cannot 400, none 404.
    var arcGISError: ArcGISError {
        switch self {
        case .invalidName: ArcGISError.invalidParameter("name", description)
        case .notFound: ArcGISError(kind: .notFound, message: "Snapshot not found.", details: [description])
        case .unsupported: ArcGISError(kind: .unsupported, message: "Unable to complete operation.", details: [description])
        case .failed: ArcGISError.internalError(description)
        }
    }
}
