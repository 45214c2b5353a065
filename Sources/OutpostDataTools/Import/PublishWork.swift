import Foundation
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostWire
import Synchronization

/// The portal's publish job (docs/portal.md, "Publishing"): an uploaded file imported as a new
/// service through `FeatureImporter.importUpload`, its progress and warnings in the job's
/// record, and the service's item related to the file's (`Service2Data`) once it exists.
public struct PublishWork<Backend: OutpostBackend>: Sendable {
    public let store: Backend
    public let source: UploadedSource
    /// The file's name, as errors show it.
    public let displayName: String
    public let options: FeatureImportOptions
    /// GDAL's longest run.
    public let timeLimit: Duration
    /// The service's item and the file's item.
    public let serviceItemId: String
    public let dataItemId: String

    public init(
        store: Backend, source: UploadedSource, displayName: String, options: FeatureImportOptions, timeLimit: Duration, serviceItemId: String,
        dataItemId: String
    ) {
        self.store = store
        self.source = source
        self.displayName = displayName
        self.options = options
        self.timeLimit = timeLimit
        self.serviceItemId = serviceItemId
        self.dataItemId = dataItemId
    }

    /// Submits `job` (kind `.publish`) of `caller` to `runner`.
    public func submit(_ job: JobRecord, runner: JobRunner, caller: String) async throws {
        try await runner.submit(job, for: caller, in: store) { steps in try run(progress: steps.progress) }
    }

    /// The work, on the blocking pool: the import runs as a task while this thread reports its
    /// progress (0–40 % GDAL, 40–100 % the rows) every half second; how the job ends.
    func run(progress: (JobProgress) -> Void) throws -> JobEvent {
        let state = Mutex((percent: 0, warnings: [String](), outcome: Result<StoredService, any Error>?.none))
        var options = options
        options.progress = { step in
            let percent = step.isPercent ? step.loaded * 40 / 100 : 40 + (step.total > 0 ? step.loaded * 60 / step.total : 0)
            state.withLock { $0.percent = max($0.percent, min(99, percent)) }
        }
        options.warn = { text in state.withLock { if $0.warnings.count < 100 { $0.warnings.append(text) } } }
        let done = DispatchSemaphore(value: 0)
        let (store, source, displayName, timeLimit) = (self.store, self.source, self.displayName, self.timeLimit)
        Task { [options] in
            let outcome: Result<StoredService, any Error>
            do {
                outcome = .success(
                    try await FeatureImporter(store: store).importUpload(source, displayName: displayName, options: options, timeLimit: timeLimit))
            } catch {
                outcome = .failure(error)
            }
            state.withLock { $0.outcome = outcome }
            done.signal()
        }
        var reported = -1
        while done.wait(timeout: .now() + 0.5) == .timedOut {
            let percent = state.withLock { $0.percent }
            if percent != reported {
                progress(JobProgress(done: percent, total: 100))
                reported = percent
            }
        }
        let (warnings, outcome) = state.withLock { ($0.warnings, $0.outcome) }
        let service = try outcome!.get()
        try store.portal.addRelationship(ItemRelationship(origin: serviceItemId, destination: dataItemId, type: "Service2Data"))
        progress(JobProgress(done: 100, total: 100))
        return .answered(["layers": .int(Int64(service.definition.layers.count)), "warnings": .array(warnings.map(JSONValue.string))])
    }
}
