import Logging
import OutpostService
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
        try await runEvery(interval) { _ = try? await StoreCall.run { sweep() } }
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
