import Foundation
import Metrics
import OutpostService
import OutpostStorage
import Prometheus
import Synchronization

/// What `/metrics` reports, in the Prometheus text format (docs/operations.md).
///
/// Request figures are recorded through swift-metrics into a registry of this server's own
/// (not the process-wide `MetricsSystem`, so several servers in one test process never mix);
/// figures the store holds (edits, conflicts, replicas, database size) are read at each scrape.
public final class ServerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let editsReported = Mutex<Int>(0)
    private let conflictsReported = Mutex<Int?>(nil)
    /// Each operation's latency timer and per-status counters, made once (labels are bounded):
    /// making them per request cost a registry lookup and its allocations every time.
    private let requestHandles = Mutex<[String: (timer: Metrics.Timer, counters: [Int: Metrics.Counter])]>([:])

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5),
            .seconds(5), .seconds(10), .seconds(30),
        ]
        self.factory = factory
    }

    /// One answered request: its latency per operation, and a count per operation and status.
    func requestFinished(operation: String, status: Int, nanoseconds: Int64) {
        let factory = self.factory
        let (timer, counter) = requestHandles.withLock { handles in
            var entry =
                handles[operation]
                ?? (Metrics.Timer(label: "outpost_request_duration_seconds", dimensions: [("operation", operation)], factory: factory), [:])
            let counter =
                entry.counters[status]
                ?? Metrics.Counter(
                    label: "outpost_requests_total", dimensions: [("operation", operation), ("status", String(status))], factory: factory)
            entry.counters[status] = counter
            handles[operation] = entry
            return (entry.timer, counter)
        }
        timer.recordNanoseconds(nanoseconds)
        counter.increment()
    }

    /// Reads what the store (on the blocking pool) and the job runner hold, then renders every metric.
    func scrape(store: some OutpostBackend, runner: JobRunner) async throws -> [UInt8] {
        let (edits, counts) = try await StoreCall.run { (store.editsApplied, try store.maintenance.counts()) }
        let newEdits = editsReported.withLock { reported in
            defer { reported = edits }
            return edits - reported
        }
        Counter(label: "outpost_edits_applied_total", factory: factory).increment(by: newEdits)

        let (replicas, conflicts) = (counts.replicas, counts.conflicts)
        // The conflict log is kept for good: its size is the count of conflicts recorded.
        let newConflicts = conflictsReported.withLock { reported in
            defer { reported = conflicts }
            return conflicts - (reported ?? 0)
        }
        Counter(label: "outpost_conflicts_recorded_total", factory: factory).increment(by: max(0, newConflicts))
        Gauge(label: "outpost_replicas_registered", factory: factory).record(replicas)

        let load = runner.load
        Gauge(label: "outpost_jobs", dimensions: [("state", "running")], factory: factory).record(load.running)
        Gauge(label: "outpost_jobs", dimensions: [("state", "queued")], factory: factory).record(load.queued)

        Gauge(label: "outpost_database_bytes", factory: factory).record(counts.databaseBytes)

        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }

    /// The operation a request path names, for labels: never an id, so the label set is bounded.
    public static func operationLabel(_ path: String) -> String {
        let segments = path.split(separator: "/").map(String.init)
        guard segments.count >= 2, segments[0] == "arcgis" else {
            return ["health", "metrics"].contains(segments.first ?? "") ? segments[0] : "other"
        }
        if segments.count >= 3, segments[1] == "tokens" { return "generateToken" }
        if segments[1] == "sharing" { return "portal" }
        if segments.count == 3 { return segments[2] == "info" ? "info" : "services" }
        if segments.count == 4, segments[2] == "info" { return "healthCheck" }
        if segments.count == 4, segments[2] == "services" { return "folder" }
        guard let kind = ServiceRoutes.kindIndex(segments) else { return "other" }
        let rest = Array(segments.dropFirst(kind + 1))
        if segments[kind] == "replicafiles" { return "replicaFile" }
        if segments[kind] == "VersionManagementServer" { return "versionManagement" }
        guard let first = rest.first else { return "service" }
        if segments[kind] == "MapServer" || segments[kind] == "VectorTileServer" {
            return ["tile", "tilemap"].contains(first) ? first : first == "resources" ? "style" : "other"
        }
        let named: Set = [
            "applyEdits", "addFeatures", "updateFeatures", "deleteFeatures", "query", "queryAttachments", "queryRelatedRecords", "createReplica",
            "synchronizeReplica", "unRegisterReplica", "addAttachment", "updateAttachment", "deleteAttachments", "layers",
        ]
        if let last = rest.last, named.contains(last) { return last }
        switch first {
        case "replicas": return rest.count == 1 ? "replicas" : rest.last == "conflicts" ? "replicaConflicts" : "replicaInfo"
        case "jobs": return "jobStatus"
        case "uploads": return "uploads"
        default:
            if rest.count == 1 { return "layer" }
            if rest.contains("attachments") { return "attachments" }
            return "feature"
        }
    }
}
