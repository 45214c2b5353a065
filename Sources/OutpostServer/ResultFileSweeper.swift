import Logging
import OutpostStorage
import ServiceLifecycle

/// Removes result files nobody downloaded for `ResultFiles.idleTime`, and forgets their
/// owners, every `interval` while the server runs, whether or not new replicas are asked for.
/// A service of the application's service group: it stops at graceful shutdown.
struct ResultFileSweeper<Registry: ResultFileRegistry>: Service {
    let files: ResultFiles
    let registry: Registry
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try await runEvery(interval) { sweep() }
    }

    func sweep() {
        files.sweep(forgettingOwnersIn: registry, logger: logger)
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
    /// once a minute (requests that make result files sweep so too).
    func sweep(ifDue: Bool = false, forgettingOwnersIn registry: some ResultFileRegistry, logger: Logger) {
        let removed = ifDue ? sweepIfDue() : sweep()
        guard !removed.isEmpty else { return }
        do {
            try registry.forgetResultFiles(removed)
        } catch {
            logger.warning("Could not forget removed result files: \(error)")
        }
    }
}
