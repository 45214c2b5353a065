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

    /// The work, on the blocking pool: GDAL's conversion runs as a task while this thread
    /// reports its progress every half second (0–40 %); then this thread imports the rows
    /// (40–100 %) — the import is blocking work, never the cooperative threads'. How the job ends.
    func run(progress: (JobProgress) -> Void) throws -> JobEvent {
        let state = Mutex((percent: 0, outcome: Result<ConvertedUpload, any Error>?.none))
        let done = DispatchSemaphore(value: 0)
        let (source, displayName, options, timeLimit) = (self.source, self.displayName, self.options, self.timeLimit)
        Task {
            let outcome: Result<ConvertedUpload, any Error>
            do {
                outcome = .success(
                    try await source.convert(
                        displayName: displayName, scratchDirectory: options.scratchDirectory, srs: options.srs,
                        csvCoordinates: options.csvCoordinates, timeLimit: timeLimit,
                        progress: { percent in state.withLock { $0.percent = max($0.percent, min(40, percent * 40 / 100)) } }))
            } catch {
                outcome = .failure(error)
            }
            state.withLock { $0.outcome = outcome }
            done.signal()
        }
        var reported = -1
        func report(_ percent: Int) {
            guard percent != reported else { return }
            progress(JobProgress(done: percent, total: 100))
            reported = percent
        }
        while done.wait(timeout: .now() + 0.5) == .timedOut { report(state.withLock { $0.percent }) }
        let converted = try state.withLock { $0.outcome }!.get()
        defer { try? FileManager.default.removeItem(atPath: converted.path) }
        let warnings = Mutex([String]())
        let loaded = Mutex(40)
        var importing = options
        importing.warn = { text in warnings.withLock { if $0.count < 100 { $0.append(text) } } }
        importing.progress = { step in
            guard !step.isPercent, step.total > 0 else { return }
            loaded.withLock { $0 = max($0, min(99, 40 + step.loaded * 60 / step.total)) }
        }
        // The import reports through `loaded`; this thread saves it between tables and at the end.
        let service = try FeatureImporter(store: store).importConverted(converted, displayName: displayName, options: importing)
        report(loaded.withLock { $0 })
        try store.portal.addRelationship(ItemRelationship(origin: serviceItemId, destination: dataItemId, type: "Service2Data"))
        report(100)
        return .answered(["layers": .int(Int64(service.definition.layers.count)), "warnings": .array(warnings.withLock { $0 }.map(JSONValue.string))])
    }
}
