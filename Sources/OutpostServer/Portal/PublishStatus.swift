import OutpostSync
import OutpostWire

/// A publish job as the item `status` resource answers it: ArcGIS's `status` (`processing`,
/// `completed`, `failed`) and `statusMessage`, and Outpost's `progress` (percent), `warnings`
/// (what the import left out) and `serviceName` beside them (clients ignore what they do not know).
struct PublishStatus: Sendable, Equatable {
    let job: JobRecord

    init(_ job: JobRecord) { self.job = job }

    var status: String {
        switch job.status {
        case .completed, .completedWithErrors: "completed"
        case .failed: "failed"
        default: "processing"
        }
    }

    var json: JSONValue {
        var answer: JSONObject = [
            "status": .string(status), "itemId": .string(job.replicaId), "jobId": .string(job.id), "serviceName": .string(job.serviceName),
            "progress": .int(Int64(status == "completed" ? 100 : job.progress?.percent ?? 0)),
            "warnings": job.output?["warnings"] ?? .array([]),
        ]
        if status == "failed", let error = job.error {
            answer["statusMessage"] = .string(([error.message] + error.details.filter { $0 != error.message }).joined(separator: " "))
        } else {
            answer["statusMessage"] = .string(status == "completed" ? "Published." : "Publishing.")
        }
        return .object(answer)
    }
}
