import Foundation
import OutpostWire

extension OutpostTestServer {
    /// The server's clock (`/_outpost/clock`): every time Outpost records or compares reads it.
    public struct Clock: Sendable {
        let control: ControlConnection

        /// What the clock reads now, and what moving it did.
        public struct Reading: Sendable, Equatable {
            public var now: Date
            /// How far it is from the real time, in milliseconds.
            public var offsetMilliseconds: Int64
            /// The housekeeping a move ran at once (`refreshed <area id>`, …).
            public var housekeeping: [String]
        }

        /// A step of the clock.
        public struct Step: Sendable, Equatable {
            let unit: String
            let amount: Double
            public static func milliseconds(_ n: Double) -> Step { Step(unit: "milliseconds", amount: n) }
            public static func seconds(_ n: Double) -> Step { Step(unit: "seconds", amount: n) }
            public static func minutes(_ n: Double) -> Step { Step(unit: "minutes", amount: n) }
            public static func hours(_ n: Double) -> Step { Step(unit: "hours", amount: n) }
            public static func days(_ n: Double) -> Step { Step(unit: "days", amount: n) }
        }

        public var now: Date {
            get async throws { try await reading().now }
        }

        public func reading() async throws -> Reading { Self.reading(try await control.get("clock")) }

        /// Moves the clock on; scheduled refreshes and result-file expiry run at once.
        @discardableResult
        public func advance(by step: Step) async throws -> Reading {
            Self.reading(try await control.post("clock/advance", [(step.unit, Self.number(step.amount))]))
        }

        /// Sets the clock (backwards too).
        @discardableResult
        public func set(_ date: Date) async throws -> Reading {
            Self.reading(try await control.post("clock/set", [("time", String(Int64((date.timeIntervalSince1970 * 1000).rounded())))]))
        }

        /// Back to the real time.
        @discardableResult
        public func reset() async throws -> Reading { Self.reading(try await control.post("clock/reset")) }

        static func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }

        static func reading(_ json: JSONValue) -> Reading {
            Reading(
                now: Date(timeIntervalSince1970: Double(json["now"]?.int64Value ?? 0) / 1000), offsetMilliseconds: json["offset"]?.int64Value ?? 0,
                housekeeping: json["housekeeping"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }
}
