import OutpostWire

/// What an asynchronous job does.
public enum JobKind: String, Sendable, Equatable {
    case createReplica
    case synchronizeReplica
}

/// Something that happens to a job.
public enum JobEvent: Sendable, Equatable {
    /// A worker took the job.
    case started
    /// The worker entered a phase (`ExportingData`, `ImportChanges`, …).
    case phase(JobStatus)
    /// The result is complete and in place (a result file path relative to the data folder).
    case succeeded(resultFile: String)
    case failed(ArcGISError)
    /// The server came back up while the job was unfinished: its worker is gone.
    case serverRestarted
}

/// Why an event does not apply.
public enum JobTransitionError: Error, Sendable, Equatable {
    /// Completed and failed jobs never change again.
    case alreadyFinished(JobStatus)
    /// A phase that is not a working phase (`Completed` must come with a result).
    case notAPhase(JobStatus)
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
    public var status: JobStatus
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
        case .succeeded(let file):
            next.status = .completed
            next.resultFile = file
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
}
