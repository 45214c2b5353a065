import OutpostWire

extension FaultRule {
    static let matchKeys: Set = ["service", "layer", "operation", "method", "parameters"]
    static let actionKeys: Set = ["error", "latency", "bandwidth", "cutAfterBytes", "cutAfterFraction", "reset", "job"]
    static let firingKeys: Set = ["count", "probability"]
    /// The longest latency a rule may add: five minutes.
    static let maximumLatency = 300_000.0

    /// A rule from its JSON text (`rule=`): unknown keys, wrong types and values out of
    /// bounds are refused (400) before anything else, naming the field.
    init(json text: String) throws(ArcGISError) {
        guard text.utf8.count <= 65_536, let value = try? JSONParser.parse(text), let object = value.objectValue else {
            throw Self.refusal("rule", "a JSON object (at most 64 KiB).")
        }
        try self.init(object: object)
    }

    init(object: JSONObject) throws(ArcGISError) {
        let known = Self.matchKeys.union(Self.actionKeys).union(Self.firingKeys)
        if let unknown = object.map(\.key).first(where: { !known.contains($0) }) {
            throw Self.refusal(unknown, "not a rule field; the fields are \(known.sorted().joined(separator: ", ")).")
        }
        service = try Self.text(object["service"], "service")
        operation = try Self.text(object["operation"], "operation")
        method = try Self.text(object["method"], "method")
        if let value = object["layer"] {
            guard let layer = value.int64Value, (0...1_000_000).contains(layer) else { throw Self.refusal("layer", "a layer id, 0 or more.") }
            self.layer = Int(layer)
        }
        if let value = object["parameters"] {
            guard let members = value.objectValue, members.members.count <= 100 else {
                throw Self.refusal("parameters", "an object of at most 100 names.")
            }
            for (name, member) in members {
                switch member {
                case .string(let text): parameters[name] = text
                case .int(let number): parameters[name] = String(number)
                case .bool(let flag): parameters[name] = String(flag)
                default: throw Self.refusal("parameters", "'\(name)' must be a string, number or boolean as sent.")
                }
            }
        }
        if let value = object["error"] { error = try Self.injectedError(value, "error") }
        if let value = object["latency"] { latency = try Self.latency(value) }
        bandwidth = try Self.integer(object["bandwidth"], "bandwidth", 1...1_000_000_000_000)
        cutAfterBytes = try Self.integer(object["cutAfterBytes"], "cutAfterBytes", 0...Int.max)
        if let value = object["cutAfterFraction"] {
            guard let fraction = value.doubleValue, (0...1).contains(fraction) else {
                throw Self.refusal("cutAfterFraction", "a number from 0 to 1.")
            }
            cutAfterFraction = fraction
        }
        if let value = object["reset"] {
            guard let flag = value.boolValue else { throw Self.refusal("reset", "true or false.") }
            reset = flag
        }
        if let value = object["job"] { job = try Self.jobFault(value) }
        count = try Self.integer(object["count"], "count", 1...Int.max)
        if let value = object["probability"] {
            guard let p = value.doubleValue, (0...1).contains(p) else { throw Self.refusal("probability", "a number from 0 to 1.") }
            probability = p
        }
        guard object.contains(where: { Self.actionKeys.contains($0.key) }) else {
            throw Self.refusal("rule", "give an action: \(Self.actionKeys.sorted().joined(separator: ", ")).")
        }
        if cutAfterBytes != nil && cutAfterFraction != nil {
            throw Self.refusal("cutAfterBytes", "give cutAfterBytes or cutAfterFraction, not both.")
        }
    }

    static func refusal(_ field: String, _ reason: String) -> ArcGISError { .invalidParameter("rule", "'\(field)': \(reason)") }

    static func text(_ value: JSONValue?, _ field: String) throws(ArcGISError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue, !text.isEmpty, text.count <= 256 else { throw refusal(field, "a non-empty string.") }
        return text
    }

    static func integer(_ value: JSONValue?, _ field: String, _ range: ClosedRange<Int>) throws(ArcGISError) -> Int? {
        guard let value else { return nil }
        guard let number = value.int64Value, let integer = Int(exactly: number), range.contains(integer) else {
            throw refusal(
                field,
                range.upperBound == Int.max
                    ? "an integer, at least \(range.lowerBound)." : "an integer from \(range.lowerBound) to \(range.upperBound).")
        }
        return integer
    }

    static func milliseconds(_ value: JSONValue?, _ field: String) throws(ArcGISError) -> Double {
        guard let number = value?.doubleValue, number.isFinite, (0...maximumLatency).contains(number) else {
            throw refusal(field, "milliseconds from 0 to \(Int(maximumLatency)) (five minutes).")
        }
        return number
    }

    static func latency(_ value: JSONValue) throws(ArcGISError) -> Latency {
        guard let object = value.objectValue, object.members.count == 1, let (key, member) = object.first(where: { _ in true }) else {
            throw refusal("latency", #"one of {"ms": N}, {"uniform": [a, b]}, {"lognormal": {"median": ms, "sigma": s}}."#)
        }
        switch key {
        case "ms": return .fixed(milliseconds: try milliseconds(member, "latency.ms"))
        case "uniform":
            guard let bounds = member.arrayValue, bounds.count == 2 else { throw refusal("latency.uniform", "[low, high] in milliseconds.") }
            let (low, high) = (try milliseconds(bounds[0], "latency.uniform"), try milliseconds(bounds[1], "latency.uniform"))
            guard low <= high else { throw refusal("latency.uniform", "low must not exceed high.") }
            return .uniform(low, high)
        case "lognormal":
            guard let shape = member.objectValue, Set(shape.map(\.key)) == ["median", "sigma"] else {
                throw refusal("latency.lognormal", #"{"median": ms, "sigma": s}."#)
            }
            let median = try milliseconds(shape["median"], "latency.lognormal.median")
            guard let sigma = shape["sigma"]?.doubleValue, (0...5).contains(sigma) else {
                throw refusal("latency.lognormal.sigma", "a number from 0 to 5.")
            }
            return .lognormal(median: median, sigma: sigma)
        default:
            throw refusal("latency", "'\(key)' is not a latency form; give ms, uniform or lognormal.")
        }
    }

    static func injectedError(_ value: JSONValue, _ field: String) throws(ArcGISError) -> InjectedError {
        guard let object = value.objectValue else {
            throw refusal(field, #"{"code": 100…599, "message": …, "details": […], "httpStatus"?: 200…599}."#)
        }
        if let unknown = object.map(\.key).first(where: { !["code", "message", "details", "httpStatus"].contains($0) }) {
            throw refusal("\(field).\(unknown)", "not an error field (code, message, details, httpStatus).")
        }
        guard let code = try integer(object["code"], "\(field).code", 100...599) else { throw refusal("\(field).code", "required, 100 to 599.") }
        var error = InjectedError(code: code, message: "Unable to complete operation.")
        if let message = object["message"] {
            guard let text = message.stringValue, text.count <= 4096 else { throw refusal("\(field).message", "a string.") }
            error.message = text
        }
        if let details = object["details"] {
            guard let list = details.arrayValue?.compactMap(\.stringValue), list.count == details.arrayValue?.count, list.count <= 100 else {
                throw refusal("\(field).details", "an array of strings.")
            }
            error.details = list
        }
        error.httpStatus = try integer(object["httpStatus"], "\(field).httpStatus", 200...599)
        return error
    }

    static func jobFault(_ value: JSONValue) throws(ArcGISError) -> JobFault {
        guard let object = value.objectValue else { throw refusal("job", #"{"hold": true} or {"failAtStep": "<phase>", "error": {…}}."#) }
        if object.members.count == 1, object["hold"] == true { return .hold }
        guard let step = object["failAtStep"]?.stringValue, Set(object.map(\.key)).isSubset(of: ["failAtStep", "error"]) else {
            throw refusal("job", #"{"hold": true} or {"failAtStep": "<phase>", "error": {…}}."#)
        }
        guard let phase = ServerJobStatus.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(step) == .orderedSame }), !phase.isTerminal,
            phase != .pending
        else {
            let phases = ServerJobStatus.allCases.filter { !$0.isTerminal && $0 != .pending }.map(\.rawValue)
            throw refusal("job.failAtStep", "a phase: \(phases.joined(separator: ", ")).")
        }
        let error = try object["error"].map { value throws(ArcGISError) in try injectedError(value, "job.error") }
        return .failAtStep(
            phase.rawValue, error ?? InjectedError(code: 500, message: "Unable to complete operation.", details: ["Injected failure."]))
    }
}
