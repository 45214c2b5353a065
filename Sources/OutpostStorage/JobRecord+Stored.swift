import OutpostSync
import OutpostWire

/// How a job record is written down, the same for every backend: the error as the ArcGIS error
/// JSON the status resource shows, the whole record as one JSON object where a backend keeps it
/// in one column.
extension JobRecord {
    /// The error as stored: `{"error": {code, message, details}}`.
    public var storedErrorText: String? { error.map { $0.json.jsonText } }

    /// The error of a stored `storedErrorText`.
    public static func storedError(_ text: String?) -> ArcGISError? {
        guard let text, let json = try? JSONParser.parse(text), let error = json["error"] else { return nil }
        return ArcGISError(
            kind: .init(code: Int(error["code"]?.int64Value ?? 500)), message: error["message"]?.stringValue ?? "The job failed.",
            details: error["details"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    /// The record as one JSON object (`init(stored:)` reads it back equal).
    public var stored: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "service": .string(serviceName), "kind": .string(kind.rawValue), "status": .string(status.rawValue),
            "replicaId": .string(replicaId), "replicaName": .string(replicaName), "transportType": .string(transportType.rawValue),
            "responseType": .string(responseType.rawValue), "submitted": .int(submissionTime), "updated": .int(lastUpdatedTime),
            "owner": .string(owner),
        ]
        if let resultFile { object["resultFile"] = .string(resultFile) }
        if let storedErrorText { object["error"] = .string(storedErrorText) }
        if let progress { object["progress"] = .array([.int(Int64(progress.done)), .int(Int64(progress.total))]) }
        if let output { object["output"] = output }
        return .object(object)
    }

    /// A record from `stored`; nil when the JSON is not one.
    public init?(stored json: JSONValue) {
        guard let id = json["id"]?.stringValue, let service = json["service"]?.stringValue,
            let kind = json["kind"]?.stringValue.flatMap(JobKind.init(rawValue:)),
            let submitted = json["submitted"]?.int64Value
        else { return nil }
        self.init(
            id: id, serviceName: service, kind: kind, replicaId: json["replicaId"]?.stringValue ?? "",
            replicaName: json["replicaName"]?.stringValue ?? "",
            transportType: json["transportType"]?.stringValue.flatMap(TransportType.init(lenient:)) ?? .url,
            responseType: json["responseType"]?.stringValue.flatMap(ReplicaResponseType.init(rawValue:)) ?? .data,
            submittedAt: submitted, owner: json["owner"]?.stringValue ?? "")
        status = json["status"]?.stringValue.flatMap(ServerJobStatus.init(rawValue:)) ?? .failed
        lastUpdatedTime = json["updated"]?.int64Value ?? submitted
        resultFile = json["resultFile"]?.stringValue
        error = Self.storedError(json["error"]?.stringValue)
        if let pair = json["progress"]?.arrayValue, pair.count == 2, let done = pair[0].int64Value, let total = pair[1].int64Value {
            progress = JobProgress(done: Int(done), total: Int(total))
        }
        output = json["output"]
    }
}
