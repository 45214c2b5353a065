import OutpostWire

/// What an asynchronous job does.
public enum JobKind: String, Sendable, Equatable {
    case createReplica
    case synchronizeReplica
    /// A tile package of a tile service (`exportTiles`).
    case exportTiles
    /// The tiles and bytes an `exportTiles` would take (`estimateExportTilesSize`).
    case estimateExportTilesSize
    /// OfflinePackaging's tasks (docs/map-areas.md).
    case createMapArea = "CreateMapArea"
    case setupMapArea = "SetupMapArea"
    case refreshMapAreaPackage = "RefreshMapAreaPackage"
    /// A file item published as a feature service (the portal's `publish`).
    case publish

    /// Answered in the geoprocessing form (`jobStatus`, `results`), not the replica one.
    public var isGeoprocessing: Bool { self != .createReplica && self != .synchronizeReplica }

    /// A feature service's own jobs: while one runs, the service is not deleted (a tile
    /// service's export of the same name is not its job).
    public static let featureServiceKinds: [JobKind] = [.createReplica, .synchronizeReplica, .publish]

    /// The jobs answered below a feature service (`FeatureServer/jobs/<id>`), which go with it.
    /// A publish's record stays: it is answered below its item, and a publish in flight is over
    /// only once its record reads finished (`PublishesInFlight`).
    public static let replicaKinds: [JobKind] = [.createReplica, .synchronizeReplica]

    /// What the job's progress counts.
    var progressUnit: String {
        switch self {
        case .exportTiles: "tiles written"
        case .publish: "percent"
        default: "packages made"
        }
    }
}

/// How far a job is: units of work done of the total (tiles, for exports).
public struct JobProgress: Sendable, Equatable {
    public var done: Int
    public var total: Int

    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }

    public var percent: Int { total > 0 ? min(100, done * 100 / total) : 0 }
}

/// Something that happens to a job.
public enum JobEvent: Sendable, Equatable {
    /// A worker took the job.
    case started
    /// The worker entered a phase (`ExportingData`, `ImportChanges`, …).
    case phase(ServerJobStatus)
    /// Work done so far, while working.
    case progress(JobProgress)
    /// The result is complete and in place (a result file path relative to the data folder).
    case succeeded(resultFile: String)
    /// The result is a value, not a file (an estimate).
    case answered(JSONValue)
    case failed(ArcGISError)
    /// The server came back up while the job was unfinished: its worker is gone.
    case serverRestarted
}

/// Why an event does not apply.
public enum JobTransitionError: Error, Sendable, Equatable {
    /// Completed and failed jobs never change again.
    case alreadyFinished(ServerJobStatus)
    /// A phase that is not a working phase (`Completed` must come with a result).
    case notAPhase(ServerJobStatus)
    /// A phase before the job was started.
    case notStarted
}

/// An asynchronous job as the status resource reports it (§7.3), and the rules for how it
/// moves: Pending → InProgress → working phases → Completed or Failed. A terminal job never
/// changes, so a status once reported `Completed` always has its result; a restart fails
/// unfinished jobs rather than reporting work that was not done.
public struct JobRecord: Sendable, Equatable {
    public var id: String
    public var serviceName: String
    public var kind: JobKind
    public var status: ServerJobStatus
    public var replicaId: String
    public var replicaName: String
    public var transportType: TransportType
    public var responseType: ReplicaResponseType
    public var submissionTime: Int64
    public var lastUpdatedTime: Int64
    public var resultFile: String?
    public var error: ArcGISError?
    /// Who submitted it ('' without a user): its status is theirs and the admins' to read.
    public var owner: String = ""
    public var progress: JobProgress?
    /// A result that is a value (an estimate), once completed.
    public var output: JSONValue?

    public init(
        id: String, serviceName: String, kind: JobKind, replicaId: String, replicaName: String,
        transportType: TransportType = .url, responseType: ReplicaResponseType = .data, submittedAt: Int64, owner: String = ""
    ) {
        self.owner = owner
        self.id = id
        self.serviceName = serviceName
        self.kind = kind
        self.status = .pending
        self.replicaId = replicaId
        self.replicaName = replicaName
        self.transportType = transportType
        self.responseType = responseType
        self.submissionTime = submittedAt
        self.lastUpdatedTime = submittedAt
    }

    /// The record after `event` at time `now`.
    public func applying(_ event: JobEvent, at now: Int64) throws(JobTransitionError) -> JobRecord {
        guard !status.isTerminal else { throw .alreadyFinished(status) }
        var next = self
        next.lastUpdatedTime = max(now, lastUpdatedTime)
        switch event {
        case .started:
            next.status = .inProgress
        case .phase(let phase):
            guard !phase.isTerminal, phase != .pending else { throw .notAPhase(phase) }
            guard status != .pending else { throw .notStarted }
            next.status = phase
        case .progress(let progress):
            guard status != .pending else { throw .notStarted }
            next.progress = progress
        case .succeeded(let file):
            next.status = .completed
            next.resultFile = file
        case .answered(let value):
            next.status = .completed
            next.output = value
        case .failed(let error):
            next.status = .failed
            next.error = error
        case .serverRestarted:
            next.status = .failed
            next.error = ArcGISError(
                kind: .internalError, message: "The job did not finish.",
                details: ["The server restarted while the job was \(status.rawValue); submit the request again."])
        }
        return next
    }

    /// The status document (§7.3). `resultUrl` is present exactly when the job completed.
    public func status(resultURL: String?) -> ReplicaJobStatus {
        ReplicaJobStatus(
            replicaName: replicaName, replicaId: replicaId, transportType: transportType, responseType: responseType,
            submissionTime: submissionTime, lastUpdatedTime: lastUpdatedTime, status: status,
            resultURL: status == .completed ? resultURL : nil, error: status == .failed ? error : nil)
    }

    public func statusJSON(resultURL: String?) -> JSONValue { status(resultURL: resultURL).json }

    /// The geoprocessing form of the status (exports): its one output is `resultParameter`.
    public func geoprocessingStatus(resultParameter: String) -> GeoprocessingJobStatus {
        var messages = [GeoprocessingJobStatus.Message(.informative, "Submitted.")]
        let jobStatus: GeoprocessingJobStatus.Status
        switch status {
        case .pending:
            jobStatus = .submitted
        case .completed, .completedWithErrors:
            jobStatus = .succeeded
            messages.append(.init(.informative, "Executing..."))
            if let progress { messages.append(.init(.informative, "\(progress.done) of \(progress.total) \(kind.progressUnit).")) }
            messages.append(.init(.informative, "Succeeded."))
        case .failed:
            jobStatus = .failed
            if let error {
                messages.append(.init(.error, error.message))
                messages += error.details.filter { $0 != error.message }.map { .init(.error, $0) }
            }
            messages.append(.init(.error, "Failed."))
        default:
            jobStatus = .executing
            messages.append(.init(.informative, "Executing..."))
            if let progress { messages.append(.init(.informative, "\(progress.done) of \(progress.total) \(kind.progressUnit).")) }
        }
        return GeoprocessingJobStatus(
            jobId: id, status: jobStatus, messages: messages, percent: jobStatus == .executing ? progress?.percent ?? 0 : nil,
            results: jobStatus == .succeeded ? [resultParameter] : [])
    }
}
