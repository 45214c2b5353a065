import Logging
import OutpostStorage

/// What a server does before it serves: a previous run's unfinished jobs have no worker any
/// more (they fail, never hang), and files of edits that never committed or of requests cut
/// off are removed. Contract: run before the first request (no edit in flight), which the
/// application ensures by running it as the HTTP server's prelude in the service group.
enum StartupHousekeeping {
    static func run(store: some OutpostBackend, logger: Logger) async throws {
        try await StoreCall.run { sweep(store: store, logger: logger) }
    }

    private static func sweep(store: some OutpostBackend, logger: Logger) {
        if let failed = try? store.jobs.failUnfinishedJobs(now: store.clock.milliseconds()), failed > 0 {
            logger.warning("\(failed) unfinished jobs of a previous run marked Failed")
        }
        do {
            // Processes starting together on one database: one sweeps.
            let sweep = try store.unlessAnotherProcessIs("outpost orphan sweep") { try store.maintenance.removeOrphanFiles() }
            if let sweep, sweep != OrphanFileSweep() {
                logger.notice("Removed files a previous run left: \(sweep.attachmentFiles) attachment, \(sweep.temporaryFiles) temporary")
            }
        } catch {
            logger.warning("Could not remove files a previous run left: \(error)")
        }
    }
}
