import Foundation
import OutpostClient
import OutpostWire

extension OutpostTestServer {
    /// Jobs held by a `job: .hold` fault (`/_outpost/jobs`).
    public struct Jobs: Sendable {
        let control: ControlConnection

        public struct Held: Sendable, Equatable {
            public var jobId: String
            public var operation: String?
            public var service: String?
            public var step: String?
        }

        public func held() async throws -> [Held] {
            (try await control.get("jobs")["held"]?.arrayValue ?? []).map {
                Held(
                    jobId: $0["jobId"]?.stringValue ?? "", operation: $0["operation"]?.stringValue, service: $0["service"]?.stringValue,
                    step: $0["step"]?.stringValue)
            }
        }

        /// Waits (polling) until a job is held; the held jobs.
        public func waitForHeld(timeout: Duration = .seconds(30)) async throws -> [Held] {
            let deadline = ContinuousClock.now + timeout
            while true {
                let held = try await held()
                if !held.isEmpty { return held }
                guard ContinuousClock.now < deadline else { throw ClientError.network("no job was held within \(timeout)") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        /// Lets a held job go on.
        public func release(_ jobId: String) async throws { _ = try await control.post("jobs/\(jobId)/release") }

        /// Fails a held job, with `error` (or the server's default).
        public func fail(_ jobId: String, error: FaultRule.ArcGISFault? = nil) async throws {
            _ = try await control.post("jobs/\(jobId)/fail", error.map { [("error", $0.json.jsonText)] } ?? [])
        }
    }
}
