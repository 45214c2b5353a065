import Logging
import OutpostStorage

extension ResultFiles {
    /// Removes idle files and forgets their owners (`ResultFileRegistry`); with `ifDue`, at most
    /// once a minute (requests that make result files sweep so too). One process at a time
    /// sweeps a store that several share; the others skip their turn. Blocking: call it on
    /// the blocking pool.
    public func sweep(ifDue: Bool = false, of store: some OutpostBackend, logger: Logger) {
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
