import Foundation

/// How one scenario went.
public enum ScenarioStatus: String, Sendable, Codable, Equatable {
    case pass, fail, unsupported
}

/// The outcome of a conformance run against one FeatureServer.
public struct ConformanceReport: Sendable, Codable, Equatable {
    public struct Entry: Sendable, Codable, Equatable {
        public var id: String
        public var title: String
        /// The behaviour of the reference it checks.
        public var checks: String
        public var status: ScenarioStatus
        /// Why it failed or is unsupported; empty when it passed.
        public var detail: String
        public var seconds: Double
    }

    public var serviceURL: String
    public var date: String
    public var entries: [Entry]

    public var passed: Int { entries.filter { $0.status == .pass }.count }
    public var failed: Int { entries.filter { $0.status == .fail }.count }
    public var unsupported: Int { entries.filter { $0.status == .unsupported }.count }
    /// No scenario failed (unsupported ones do not count against the server).
    public var conforms: Bool { failed == 0 }

    /// A fixed-width table for a terminal.
    public var table: String {
        let idWidth = max(8, entries.map(\.id.count).max() ?? 8)
        var lines = ["\("scenario".padding(toLength: idWidth, withPad: " ", startingAt: 0))  result       detail"]
        lines.append(String(repeating: "-", count: idWidth + 40))
        for entry in entries {
            let status = entry.status.rawValue.uppercased().padding(toLength: 11, withPad: " ", startingAt: 0)
            lines.append("\(entry.id.padding(toLength: idWidth, withPad: " ", startingAt: 0))  \(status)  \(entry.detail)")
        }
        lines.append(String(repeating: "-", count: idWidth + 40))
        lines.append("\(passed) passed, \(failed) failed, \(unsupported) unsupported — \(serviceURL)")
        return lines.joined(separator: "\n")
    }

    public var markdown: String {
        var lines = [
            "# Conformance of \(serviceURL)", "", "Run \(date): \(passed) passed, \(failed) failed, \(unsupported) unsupported.", "",
            "| scenario | checks | result | detail |", "|---|---|---|---|",
        ]
        for entry in entries {
            let detail = entry.detail.replacingOccurrences(of: "|", with: "\\|")
            lines.append("| `\(entry.id)` \(entry.title) | \(entry.checks) | \(entry.status.rawValue) | \(detail) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
