import Foundation
import OutpostWire

/// A fault rule of the control API (`POST /_outpost/faults` `rule=`): which requests it
/// matches, what it does to them, how often it fires. Encodes to the contract's JSON.
public struct FaultRule: Sendable, Equatable {
    // What it matches (every given field must).
    /// A service's name (`Demo`, `Folder/Name`).
    public var service: String?
    public var layer: Int?
    /// The journal's operation name: `query`, `applyEdits`, `createReplica`, `synchronizeReplica`,
    /// `unRegisterReplica`, `jobStatus`, `replicaFile`, `exportTiles`, `tile`, `packaging`, `generateToken`, `portal`, …
    public var operation: String?
    public var method: String?
    /// Parameters the request must carry, with these values.
    public var parameters: [String: String]

    // What it does.
    public var error: ArcGISFault?
    public var latency: Latency?
    /// Bytes per second the answer is sent at.
    public var bandwidth: Int?
    public var cutAfterBytes: Int?
    /// The connection closed after this fraction (0…1) of the answer.
    public var cutAfterFraction: Double?
    /// The connection closed with nothing answered.
    public var reset: Bool
    public var job: JobFault?

    // How often.
    /// Fires this many times, then is spent.
    public var count: Int?
    /// Fires with this probability (drawn from the server's seed when it has one).
    public var probability: Double?

    public init(
        service: String? = nil, layer: Int? = nil, operation: String? = nil, method: String? = nil, parameters: [String: String] = [:],
        error: ArcGISFault? = nil, latency: Latency? = nil, bandwidth: Int? = nil, cutAfterBytes: Int? = nil, cutAfterFraction: Double? = nil,
        reset: Bool = false, job: JobFault? = nil, count: Int? = nil, probability: Double? = nil
    ) {
        self.service = service
        self.layer = layer
        self.operation = operation
        self.method = method
        self.parameters = parameters
        self.error = error
        self.latency = latency
        self.bandwidth = bandwidth
        self.cutAfterBytes = cutAfterBytes
        self.cutAfterFraction = cutAfterFraction
        self.reset = reset
        self.job = job
        self.count = count
        self.probability = probability
    }

    /// An ArcGIS error envelope a fault answers with.
    public struct ArcGISFault: Sendable, Equatable {
        public var code: Int
        public var message: String?
        public var details: [String]
        /// The HTTP status, when not 200 (ArcGIS answers most errors with 200).
        public var httpStatus: Int?

        public init(code: Int, message: String? = nil, details: [String] = [], httpStatus: Int? = nil) {
            self.code = code
            self.message = message
            self.details = details
            self.httpStatus = httpStatus
        }

        var json: JSONValue {
            var object: JSONObject = ["code": .int(Int64(code)), "details": .array(details.map(JSONValue.string))]
            if let message { object["message"] = .string(message) }
            if let httpStatus { object["httpStatus"] = .int(Int64(httpStatus)) }
            return .object(object)
        }
    }

    /// Added latency.
    public enum Latency: Sendable, Equatable {
        case fixed(milliseconds: Int)
        case uniform(Int, Int)
        case lognormal(median: Int, sigma: Double)

        var json: JSONValue {
            switch self {
            case .fixed(let ms): ["ms": .int(Int64(ms))]
            case .uniform(let low, let high): ["uniform": [.int(Int64(low)), .int(Int64(high))]]
            case .lognormal(let median, let sigma): ["lognormal": ["median": .int(Int64(median)), "sigma": .double(sigma)]]
            }
        }
    }

    /// What happens to the job the request starts.
    public enum JobFault: Sendable, Equatable {
        /// Stays `esriJobExecuting` until `jobs.release` (or `jobs.fail`).
        case hold
        /// Fails at that phase with that error.
        case failAtStep(String, ArcGISFault)

        var json: JSONValue {
            switch self {
            case .hold: ["hold": true]
            case .failAtStep(let step, let error): ["failAtStep": .string(step), "error": error.json]
            }
        }
    }

    /// The contract's JSON.
    public var json: JSONValue {
        var rule: JSONObject = [:]
        if let service { rule["service"] = .string(service) }
        if let layer { rule["layer"] = .int(Int64(layer)) }
        if let operation { rule["operation"] = .string(operation) }
        if let method { rule["method"] = .string(method) }
        if !parameters.isEmpty {
            rule["parameters"] = .object(JSONObject(parameters.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSONValue.string($0.value)) }))
        }
        if let error { rule["error"] = error.json }
        if let latency { rule["latency"] = latency.json }
        if let bandwidth { rule["bandwidth"] = .int(Int64(bandwidth)) }
        if let cutAfterBytes { rule["cutAfterBytes"] = .int(Int64(cutAfterBytes)) }
        if let cutAfterFraction { rule["cutAfterFraction"] = .double(cutAfterFraction) }
        if reset { rule["reset"] = true }
        if let job { rule["job"] = job.json }
        if let count { rule["count"] = .int(Int64(count)) }
        if let probability { rule["probability"] = .double(probability) }
        return .object(rule)
    }
}
