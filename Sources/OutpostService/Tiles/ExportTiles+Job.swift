import Foundation
import OutpostStorage
import OutpostSync
import OutpostWire

/// `exportTiles` and `estimateExportTilesSize` as jobs of the runner.
extension ExportTiles {
    /// Runs the export (`.exportTiles`: the package, a result file of `owner`) or the count
    /// (`.estimateExportTilesSize`) as a job of `runner` for `caller` (whose share of the queue
    /// it takes); returns the job as submitted.
    public func submit(_ kind: JobKind, files: ResultFiles, owner: String, runner: JobRunner, caller: String) async throws -> JobRecord {
        let job = JobRecord(
            id: JobRunner.newJobId(), serviceName: set.name, kind: kind, replicaId: "", replicaName: "", submittedAt: backend.clock.milliseconds(),
            owner: owner)
        try await runner.submit(job, for: caller, in: backend) { steps in
            if kind == .estimateExportTilesSize { return .answered(try estimate()) }
            return .succeeded(resultFile: try writePackage(files, owner: owner, progress: steps.progress))
        }
        return job
    }

    /// Writes the package to a new result file of `owner` and publishes it; returns its name.
    /// `progress` hears the tiles written at most a few times a second, and the total at the end.
    func writePackage(_ files: ResultFiles, owner: String, progress: (JobProgress) -> Void) throws -> String {
        let name = ResultFiles.newName(extension: request.format.fileExtension)
        do {
            var reported = ContinuousClock.now
            try write(to: try files.temporaryPath(for: name)) { done in
                guard ContinuousClock.now - reported > .milliseconds(250) else { return }
                reported = ContinuousClock.now
                progress(done)
            }
            progress(JobProgress(done: plan.tileCount, total: plan.tileCount))
            try files.publish(name)
            // Served at `arcgisoutput` by its job; no feature service's `replicafiles` path matches this key.
            try backend.resultFiles.recordResultFile(name, owner: owner, service: "\(set.kind.serviceKind):\(set.name)")
        } catch {
            files.discard(name)
            throw error
        }
        return name
    }
}
