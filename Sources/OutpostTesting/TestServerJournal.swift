import Foundation
import OutpostWire

extension OutpostTestServer {
    /// The request journal (`/_outpost/journal`).
    public struct Journal: Sendable {
        let control: ControlConnection

        /// Which entries: every given field must match.
        public struct Filter: Sendable, Equatable {
            public var operation, service, method, replicaId: String?
            public var status, errorCode: Int?
            /// Entries after this sequence number.
            public var since: Int64?
            public var limit: Int?
            /// For `verify` only: parameters the request carried, with these values.
            public var parameters: [String: String]

            public init(
                operation: String? = nil, service: String? = nil, method: String? = nil, replicaId: String? = nil, status: Int? = nil,
                errorCode: Int? = nil, since: Int64? = nil, limit: Int? = nil, parameters: [String: String] = [:]
            ) {
                self.operation = operation
                self.service = service
                self.method = method
                self.replicaId = replicaId
                self.status = status
                self.errorCode = errorCode
                self.since = since
                self.limit = limit
                self.parameters = parameters
            }

            var fields: [(String, String)] {
                let texts: [(String, String?)] = [
                    ("operation", operation), ("service", service), ("method", method), ("replicaId", replicaId), ("status", status.map(String.init)),
                    ("errorCode", errorCode.map(String.init)), ("since", since.map(String.init)), ("limit", limit.map(String.init)),
                ]
                return texts.compactMap { name, value in value.map { (name, $0) } }
            }

            var pattern: JSONValue {
                var object = JSONObject(
                    fields.filter { !["since", "limit"].contains($0.0) }.map { name, value in
                        (key: name, value: Int64(value).map(JSONValue.int) ?? .string(value))
                    })
                if !parameters.isEmpty {
                    object["parameters"] = .object(JSONObject(parameters.sorted { $0.key < $1.key }.map { (key: $0.key, value: .string($0.value)) }))
                }
                return .object(object)
            }
        }

        /// One recorded request.
        public struct Entry: Sendable, Equatable {
            public var seq: Int64
            public var method, path: String
            public var operation, service, replicaId, user, fault: String?
            public var status: Int
            public var errorCode: Int?
            public var parameters: [String: String]
            /// The whole entry as the server answered it.
            public var json: JSONValue
        }

        public func entries(_ filter: Filter = Filter()) async throws -> [Entry] {
            (try await control.get("journal", filter.fields)["entries"]?.arrayValue ?? []).map(Self.entry)
        }

        public func count(_ filter: Filter = Filter()) async throws -> Int {
            Int(try await control.get("journal/count", filter.fields)["count"]?.int64Value ?? -1)
        }

        /// How many to expect of a `verify`.
        public enum Expectation: Sendable, Equatable {
            case exactly(Int), atLeast(Int), atMost(Int)
        }

        /// Whether the entries matching `pattern` are as many as expected; how many matched.
        public func verify(_ pattern: Filter, _ expected: Expectation) async throws -> (matched: Int, success: Bool) {
            let bound: (String, String) =
                switch expected {
                case .exactly(let n): ("count", String(n))
                case .atLeast(let n): ("atLeast", String(n))
                case .atMost(let n): ("atMost", String(n))
                }
            let answer = try await control.post("journal/verify", [("pattern", pattern.pattern.jsonText), bound])
            return (Int(answer["matched"]?.int64Value ?? -1), answer["success"]?.boolValue ?? false)
        }

        public func clear() async throws { _ = try await control.post("journal/clear") }

        /// The journal as HAR 1.2 (headers included), for a browser's or a proxy's tools.
        public func har() async throws -> JSONValue { try await control.get("journal/har") }

        static func entry(_ json: JSONValue) -> Entry {
            var parameters: [String: String] = [:]
            for (name, value) in json["parameters"]?.objectValue ?? [:] { parameters[name] = value.stringValue ?? value.jsonText }
            return Entry(
                seq: json["seq"]?.int64Value ?? 0, method: json["method"]?.stringValue ?? "", path: json["path"]?.stringValue ?? "",
                operation: json["operation"]?.stringValue, service: json["service"]?.stringValue, replicaId: json["replicaId"]?.stringValue,
                user: json["user"]?.stringValue, fault: json["fault"]?.stringValue, status: Int(json["status"]?.int64Value ?? 0),
                errorCode: json["errorCode"]?.int64Value.map(Int.init), parameters: parameters, json: json)
        }
    }
}
