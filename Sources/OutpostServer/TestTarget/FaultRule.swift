import OutpostWire

/// One fault rule of a test target (docs/testing-your-app.md, Faults): which requests it
/// matches, what it does to them, and how often it fires. A value parsed from the rule's
/// JSON; the board keeps how often it fired.
struct FaultRule: Sendable, Equatable {
    /// An ArcGIS error to answer with: any code 100…599, answered with HTTP 200 (as ArcGIS
    /// does) unless `httpStatus` is given.
    struct InjectedError: Sendable, Equatable {
        var code: Int
        var message: String
        var details: [String] = []
        var httpStatus: Int?

        /// The envelope's JSON, as ArcGIS answers errors.
        var envelope: JSONValue {
            ["error": ["code": .int(Int64(code)), "message": .string(message), "details": .array(details.map(JSONValue.string))]]
        }

        /// As a job's error: a job record keeps the error's kind, the nearest to `code`.
        var arcGISError: ArcGISError { ArcGISError(kind: .init(code: code), message: message, details: details) }
    }

    /// How long a matching request waits before its route runs.
    enum Latency: Sendable, Equatable {
        case fixed(milliseconds: Double)
        case uniform(Double, Double)
        case lognormal(median: Double, sigma: Double)
    }

    /// What happens to the job the matching request starts.
    enum JobFault: Sendable, Equatable {
        /// It stays executing until released (or failed) through the control API.
        case hold
        /// It fails with `error` once it reaches the step (phase) named.
        case failAtStep(String, InjectedError)
    }

    var id: String = ""
    // What it matches: every field given must match.
    var service: String?
    var layer: Int?
    var operation: String?
    var method: String?
    var parameters: [String: String] = [:]
    // What it does.
    var error: InjectedError?
    var latency: Latency?
    var bandwidth: Int?
    var cutAfterBytes: Int?
    var cutAfterFraction: Double?
    var reset = false
    var job: JobFault?
    // How often it fires: `count` times at most, each time with `probability`.
    var count: Int?
    var probability: Double?

    /// Whether the request the facts describe is one this rule is about.
    func matches(_ facts: RequestFacts) -> Bool {
        if let service, service.caseInsensitiveCompare(facts.service ?? "") != .orderedSame { return false }
        if let layer, layer != facts.layer { return false }
        if let operation, !facts.isOperation(operation) { return false }
        if let method, method.uppercased() != facts.method.uppercased() { return false }
        return parameters.allSatisfy { name, value in facts.parameters[name] == value }
    }

    /// The rule as the control API lists it, with how often it fired.
    func json(fired: Int) -> JSONValue {
        var rule: JSONObject = ["id": .string(id)]
        if let service { rule["service"] = .string(service) }
        if let layer { rule["layer"] = .int(Int64(layer)) }
        if let operation { rule["operation"] = .string(operation) }
        if let method { rule["method"] = .string(method) }
        if !parameters.isEmpty {
            rule["parameters"] = .object(JSONObject(parameters.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSONValue.string($0.value)) }))
        }
        if let error { rule["error"] = Self.json(error) }
        if let latency {
            switch latency {
            case .fixed(let milliseconds): rule["latency"] = ["ms": .double(milliseconds)]
            case .uniform(let low, let high): rule["latency"] = ["uniform": [.double(low), .double(high)]]
            case .lognormal(let median, let sigma): rule["latency"] = ["lognormal": ["median": .double(median), "sigma": .double(sigma)]]
            }
        }
        if let bandwidth { rule["bandwidth"] = .int(Int64(bandwidth)) }
        if let cutAfterBytes { rule["cutAfterBytes"] = .int(Int64(cutAfterBytes)) }
        if let cutAfterFraction { rule["cutAfterFraction"] = .double(cutAfterFraction) }
        if reset { rule["reset"] = true }
        switch job {
        case .hold: rule["job"] = ["hold": true]
        case .failAtStep(let step, let error): rule["job"] = ["failAtStep": .string(step), "error": Self.json(error)]
        case nil: break
        }
        if let count { rule["count"] = .int(Int64(count)) }
        if let probability { rule["probability"] = .double(probability) }
        rule["fired"] = .int(Int64(fired))
        return .object(rule)
    }

    static func json(_ error: InjectedError) -> JSONValue {
        var object: JSONObject = [
            "code": .int(Int64(error.code)), "message": .string(error.message), "details": .array(error.details.map(JSONValue.string)),
        ]
        if let status = error.httpStatus { object["httpStatus"] = .int(Int64(status)) }
        return .object(object)
    }
}

/// What a fault rule can see of a request: a pure description, built by the middleware.
struct RequestFacts: Sendable, Equatable {
    var method: String
    /// `ServerMetrics.operationLabel`'s name (the journal's).
    var operation: String
    var service: String?
    var layer: Int?
    var parameters: [String: String] = [:]

    init(method: String, operation: String, service: String? = nil, layer: Int? = nil, parameters: [String: String] = [:]) {
        self.method = method
        self.operation = operation
        self.service = service
        self.layer = layer
        self.parameters = parameters
    }

    /// A request's facts from its path (no query), method and form.
    init(method: String, path: String, parameters: [String: String]) {
        let named = RequestPath(path)
        self.init(method: method, operation: named.operation, service: named.service, layer: named.layer, parameters: parameters)
    }

    /// Whether a rule's `operation` names this request's (case-insensitively).
    func isOperation(_ name: String) -> Bool { name.caseInsensitiveCompare(operation) == .orderedSame }
}
