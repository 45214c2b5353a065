import Foundation
import OutpostWire

extension OutpostTestServer {
    /// Snapshots of the whole state (`/_outpost/snapshots`).
    public struct Snapshots: Sendable {
        let control: ControlConnection

        public struct Snapshot: Sendable, Equatable {
            public var name: String
            public var created: Int64?
            public var bytes: Int64?
        }

        @discardableResult
        public func save(_ name: String) async throws -> Snapshot { Self.snapshot(try await control.post("snapshots", [("name", name)])["snapshot"]) }

        /// Restores `name`; how long it took, in milliseconds.
        @discardableResult
        public func restore(_ name: String) async throws -> Int64 {
            try await control.post("snapshots/\(name)/restore")["milliseconds"]?.int64Value ?? 0
        }

        public func list() async throws -> [Snapshot] { (try await control.get("snapshots")["snapshots"]?.arrayValue ?? []).map(Self.snapshot) }

        public func delete(_ name: String) async throws { _ = try await control.post("snapshots/\(name)/delete") }

        static func snapshot(_ json: JSONValue?) -> Snapshot {
            Snapshot(name: json?["name"]?.stringValue ?? "", created: json?["created"]?.int64Value, bytes: json?["bytes"]?.int64Value)
        }
    }
}
