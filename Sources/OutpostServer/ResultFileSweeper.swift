import Logging
import OutpostStorage
import ServiceLifecycle

/// Removes result files nobody downloaded for `ResultFiles.idleTime`, and forgets their
/// owners, every `interval` while the server runs, whether or not new replicas are asked for.
/// A service of the application's service group: it stops at graceful shutdown.
struct ResultFileSweeper<Backend: OutpostBackend>: Service {
    let files: ResultFiles
    let store: Backend
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try await runEvery(interval) { sweep() }
    }

    func sweep() {
        files.sweep(of: store, logger: logger)
    }
}

/// Runs `work` every `interval` until graceful shutdown, which interrupts the wait between
/// runs as a normal end (the background services' one loop).
func runEvery(_ interval: Duration, _ work: @escaping @Sendable () async -> Void) async throws {
    do {
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await work()
            }
        }
    } catch is CancellationError {}
}

extension ResultFiles {
    /// Removes idle files and forgets their owners (`ResultFileRegistry`); with `ifDue`, at most
    /// once a minute (requests that make result files sweep so too). One process at a time
    /// sweeps a store that several share; the others skip their turn.
    func sweep(ifDue: Bool = false, of store: some OutpostBackend, logger: Logger) {
        let removed: [String]
        do {
            removed = try store.unlessAnotherProcessIs("outpost result file sweep") { ifDue ? sweepIfDue() : sweep() } ?? []
        } catch {
            logger.warning("Could not sweep result files: \(error)")
            return
        }
        guard !removed.isEmpty else { return }
        do {
            try store.resultFiles.forgetResultFiles(removed)
        } catch {
            logger.warning("Could not forget removed result files: \(error)")
        }
    }
}
