/// A geoprocessing-style job's status, as `exportTiles`, `estimateExportTilesSize` and GP
/// services answer `…/jobs/<id>` (offline-maps.md §3.2, Appendix B): `jobId`, `jobStatus`,
/// `messages`, `progress`, and `results` naming each output parameter's URL once succeeded.
public struct GeoprocessingJobStatus: Sendable, Equatable {
    public enum Status: String, Sendable, Equatable {
        case submitted = "esriJobSubmitted"
        case waiting = "esriJobWaiting"
        case executing = "esriJobExecuting"
        case succeeded = "esriJobSucceeded"
        case failed = "esriJobFailed"
        case timedOut = "esriJobTimedOut"
        case cancelling = "esriJobCancelling"
        case cancelled = "esriJobCancelled"

        /// Clients stop polling at these.
        public var isTerminal: Bool { [.succeeded, .failed, .timedOut, .cancelled].contains(self) }
    }

    public struct Message: Sendable, Equatable {
        public enum Kind: String, Sendable, Equatable {
            case informative = "esriJobMessageTypeInformative"
            case warning = "esriJobMessageTypeWarning"
            case error = "esriJobMessageTypeError"
        }

        public var kind: Kind
        public var description: String

        public init(_ kind: Kind, _ description: String) {
            self.kind = kind
            self.description = description
        }
    }

    public var jobId: String
    public var status: Status
    public var messages: [Message]
    /// Percent done, while executing.
    public var percent: Int?
    /// Output parameter names; present once succeeded.
    public var results: [String]

    public init(jobId: String, status: Status, messages: [Message] = [], percent: Int? = nil, results: [String] = []) {
        self.jobId = jobId
        self.status = status
        self.messages = messages
        self.percent = percent
        self.results = results
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "jobId": .string(jobId), "jobStatus": .string(status.rawValue),
            "messages": .array(messages.map { ["type": .string($0.kind.rawValue), "description": .string($0.description)] }),
            "inputs": [:],
        ]
        if let percent, status == .executing, let last = messages.last {
            object["progress"] = ["type": "default", "message": .string(last.description), "percent": .int(Int64(percent))]
        }
        if status == .succeeded {
            var results: JSONObject = [:]
            for name in self.results { results[name] = ["paramUrl": .string("results/\(name)")] }
            object["results"] = .object(results)
        }
        return .object(object)
    }

    public init?(json: JSONValue) {
        guard let id = json["jobId"]?.stringValue, let status = (json["jobStatus"] ?? json["status"])?.stringValue.flatMap(Status.init(rawValue:))
        else { return nil }
        self.init(
            jobId: id, status: status,
            messages: json["messages"]?.arrayValue?.compactMap { message in
                guard let kind = message["type"]?.stringValue.flatMap(Message.Kind.init(rawValue:)) else { return nil }
                return Message(kind, message["description"]?.stringValue ?? "")
            } ?? [],
            percent: json["progress"]?["percent"]?.int64Value.map(Int.init),
            results: json["results"]?.objectValue?.keys ?? [])
    }

    /// A result parameter's answer (`results/<name>`): `{"paramName", "dataType", "value"}`.
    public static func result(_ name: String, value: JSONValue) -> JSONValue {
        ["paramName": .string(name), "dataType": value.stringValue != nil ? "GPString" : "GPDataFile", "value": value]
    }
}
