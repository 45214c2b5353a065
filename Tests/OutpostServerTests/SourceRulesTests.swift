import Foundation
import Testing

/// Rules of the tree that a reader should not have to check by hand.
@Suite struct SourceRulesTests {
    /// SQL lives in the storage implementation only: the server and the CLI ask the store.
    @Test func noSQLTextInTheServerOrTheCLI() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let pattern = try Regex(#"sql:|\bSELECT\s|\bINSERT\s+INTO\b|\bDELETE\s+FROM\b|\bCREATE\s+(TABLE|INDEX|TRIGGER)\b|\bPRAGMA\s|\bUPDATE\s+\S+\s+SET\b"#)
        var offenders: [String] = []
        for module in ["Sources/OutpostServer", "Sources/outpost"] {
            let directory = root.appendingPathComponent(module)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains(pattern) {
                    offenders.append("\(module)/\(name):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("Sources/OutpostServer/Application+build.swift").path))
    }
}
