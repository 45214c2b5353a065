import Foundation

/// A child job of a job made of others (`GenerateOfflineMapJob`, `OfflineMapSyncJob`).
protocol ChildJob: Sendable {
    var status: JobStatus { get }
    var fraction: Double { get }
    var pollInterval: Duration { get nonmutating set }
    func start()
    func pause()
    func cancel()
    /// The state to resume from after a pause; empty for a child that starts over.
    func toJSON() throws -> Data
    /// Waits for the end; throws the child's error.
    func waitForEnd() async throws -> ChildOutput
}

/// What a finished child job reports to its parent.
struct ChildOutput: Sendable, Equatable {
    var syncResult: SyncResult?
    /// A file was replaced whole: whoever has it open must open it again.
    var reopenRequired = false
    /// Files kept beside the output (scheduled-update deltas), relative to the parent's folder.
    var keptDeltas: [String] = []
}

/// One child job as its parent keeps it (and serializes it).
struct ChildJobRecord: Codable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable { case geodatabase, tiles, locator, network, sync, scheduledUpdates }
    enum State: String, Codable, Sendable { case pending, running, done, failed }
    var kind: Kind
    var serviceURL: String
    var mapLayerIds: [String]
    /// Relative to the offline map's folder: `data/<service>.gpkg`, `tiles/<service>.mbtiles`.
    var file: String
    /// Preplanned: the package item downloaded (or whose deltas are applied).
    var packageItemId: String?
    var state = State.pending
    /// The child job saved when its parent was paused.
    var saved: Data?
    var error: ClientError?
    var output: ChildOutput?

    init(kind: Kind, serviceURL: String, mapLayerIds: [String], file: String, packageItemId: String? = nil, state: State = .pending) {
        self.state = state
        self.kind = kind
        self.serviceURL = serviceURL
        self.mapLayerIds = mapLayerIds
        self.file = file
        self.packageItemId = packageItemId
    }
}

extension ChildOutput: Codable {}

extension Job: ChildJob {
    var fraction: Double { progress.fractionCompleted }

    func waitForEnd() async throws -> ChildOutput {
        // The geodatabase the child opened is closed: the parent's files are its output.
        defer { engine.closeGeodatabase() }
        let made = try await output
        (made as? Geodatabase)?.close()
        return ChildOutput(syncResult: made as? SyncResult)
    }
}

/// A child that runs one async operation (a package downloaded, scheduled updates applied):
/// a pause stops it and a resume runs it again from the start, so the operation must be
/// safe to repeat (a download starts over; deltas already applied are not applied twice).
final class RestartableChild: ChildJob {
    let operation: @Sendable () async throws -> ChildOutput
    let state = Locked<(status: JobStatus, task: Task<Void, Never>?, error: ClientError?, output: ChildOutput?)>((.notStarted, nil, nil, nil))

    init(_ operation: @escaping @Sendable () async throws -> ChildOutput) { self.operation = operation }

    var status: JobStatus { state.withLock { $0.status } }
    var fraction: Double { status == .succeeded ? 1 : 0 }
    var pollInterval: Duration {
        get { .zero }
        set {}
    }

    func start() {
        state.withLock { state in
            guard state.status == .notStarted || state.status == .paused else { return }
            state.status = .started
            state.task = Task {
                do {
                    let output = try await self.operation()
                    self.state.withLock {
                        $0.status = .succeeded
                        $0.output = output
                    }
                } catch is CancellationError {
                    self.state.withLock { $0.status = $0.status == .started ? .paused : $0.status }
                } catch {
                    self.state.withLock {
                        $0.status = .failed
                        $0.error = error as? ClientError ?? .invalidResponse("\(error)")
                    }
                }
            }
        }
    }

    func pause() { state.withLock { $0.task }?.cancel() }

    func cancel() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.status = .failed
            state.error = .cancelled
            return state.task
        }
        task?.cancel()
    }

    func toJSON() throws -> Data { Data() }

    func waitForEnd() async throws -> ChildOutput {
        await state.withLock { $0.task }?.value
        let (error, output) = state.withLock { ($0.error, $0.output) }
        if let error { throw error }
        return output ?? ChildOutput()
    }
}
