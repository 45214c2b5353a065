import Foundation
import Testing

/// Rules of the tree that a reader should not have to check by hand.
@Suite struct SourceRulesTests {
    /// SQL lives in the storage implementation only: the server and the CLI ask the store.
    @Test func noSQLTextInTheServerOrTheCLI() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let pattern = try Regex(
            #"sql:|\bSELECT\s|\bINSERT\s+INTO\b|\bDELETE\s+FROM\b|\bCREATE\s+(TABLE|INDEX|TRIGGER)\b|\bPRAGMA\s|\bUPDATE\s+\S+\s+SET\b"#)
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

    /// The HTTP layer and the CLI know no database library, and no storage module knows HTTP.
    @Test func theServerAndTheCLIImportNoDatabaseLibraryAndStorageNoHTTP() throws {
        for (module, forbidden) in [
            ("Sources/OutpostServer", "import GRDB"), ("Sources/outpost", "import GRDB"),
            ("Sources/OutpostStorage", "import GRDB"), ("Sources/OutpostStorage", "import Hummingbird"),
            ("Sources/OutpostStore", "import Hummingbird"),
        ] {
            #expect(try Self.lines(in: module, containing: forbidden).isEmpty, "\(module) has \(forbidden)")
        }
    }

    /// No user-triggered path acts `.unrestricted` (issue 43: deleting a map area unregistered
    /// replicas and the scheduler refreshed packages so): requests act as their caller. The one
    /// place the server names it is the scheduler's fallback while token security is off, when
    /// every caller is unrestricted anyway.
    @Test func noRequestActsUnrestricted() throws {
        let found = try Self.lines(in: "Sources/OutpostServer", containing: ".unrestricted")
        #expect(found.count == 1 && found[0].contains("ScheduledRefresher.swift") && found[0].contains("requireAuth ? nil"), "\(found)")
        let service = try Self.lines(in: "Sources/OutpostService", containing: ".unrestricted").filter { !$0.contains("PortalCaller.swift") }
        #expect(service.isEmpty, "use cases take their caller: \(service)")
    }

    /// Errors render themselves (`ArcGISErrorConvertible`): no chain of downcasts decides an answer.
    @Test func errorsAreNotMappedByDowncasting() throws {
        let pattern = try Regex(#"as\?? (ArcGISError|StoreError|VersionFailure|DatabaseError|UserFailure)\b"#)
        #expect(try Self.lines(in: "Sources/OutpostServer", matching: pattern).isEmpty)
    }

    /// Time comes from the injected clock in the store, the server and the client.
    @Test func timeIsReadFromTheInjectedClock() throws {
        for module in ["Sources/OutpostStore", "Sources/OutpostServer", "Sources/OutpostClient", "Sources/OutpostSync"] {
            let offenders = try Self.lines(in: module, containing: "Date().timeIntervalSince1970")
                .filter { !$0.contains("WallClock.swift") && !$0.contains("Migrations") }
            #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
        }
    }

    /// No source file much over 400 lines.
    @Test func noSourceFileIsMuchOver400Lines() throws {
        var long: [String] = []
        for top in ["Sources", "Tests"] {
            let enumerator = FileManager.default.enumerator(atPath: Self.root.appendingPathComponent(top).path)
            while let name = enumerator?.nextObject() as? String {
                guard name.hasSuffix(".swift") else { continue }
                let text = try String(contentsOf: Self.root.appendingPathComponent(top).appendingPathComponent(name), encoding: .utf8)
                let count = text.split(separator: "\n", omittingEmptySubsequences: false).count
                if count > 450 { long.append("\(top)/\(name): \(count)") }
            }
        }
        #expect(long.isEmpty, "\(long)")
    }

    static var root: URL {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root
    }

    static func lines(in module: String, containing text: String) throws -> [String] {
        try lines(in: module) { $0.contains(text) }
    }

    static func lines(in module: String, matching pattern: Regex<AnyRegexOutput>) throws -> [String] {
        try lines(in: module) { $0.contains(pattern) }
    }

    private static func lines(in module: String, where matches: (Substring) -> Bool) throws -> [String] {
        let directory = root.appendingPathComponent(module)
        var found: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where matches(line) {
                found.append("\(module)/\(name):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }
}
