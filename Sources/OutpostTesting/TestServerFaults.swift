import Foundation
import OutpostClient
import OutpostWire

extension OutpostTestServer {
    /// Fault rules (`/_outpost/faults`).
    public struct Faults: Sendable {
        let control: ControlConnection

        /// A rule as the server holds it.
        public struct Installed: Sendable, Equatable {
            public var id: String
            /// Times it has fired.
            public var fired: Int
            /// The rule's JSON as the server answered it.
            public var json: JSONValue
        }

        /// Installs `rule`; its id.
        @discardableResult
        public func inject(_ rule: FaultRule) async throws -> String {
            let answer = try await control.post("faults", [("rule", rule.json.jsonText)])
            guard let id = answer["rule"]?["id"]?.stringValue else { throw ClientError.invalidResponse("the fault answer names no id: \(answer)") }
            return id
        }

        public func list() async throws -> [Installed] {
            (try await control.get("faults")["rules"]?.arrayValue ?? []).map(Self.installed)
        }

        /// The rule of that id (to read `fired`), nil once removed.
        public func rule(_ id: String) async throws -> Installed? { try await list().first { $0.id == id } }

        public func remove(_ id: String) async throws { _ = try await control.post("faults/\(id)/delete") }

        public func clear() async throws { _ = try await control.post("faults/clear") }

        static func installed(_ json: JSONValue) -> Installed {
            Installed(id: json["id"]?.stringValue ?? "", fired: Int(json["fired"]?.int64Value ?? 0), json: json)
        }
    }
}
