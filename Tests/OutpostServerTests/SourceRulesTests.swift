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
            for name in try Self.swiftFiles(in: module) {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains(pattern) {
                    offenders.append("\(module)/\(name):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("Sources/OutpostServer/Application+build.swift").path))
    }

    /// Issue 48: the home is a client of the server's own REST API (`HomeGateway`): nothing
    /// below Sources/OutpostServer/Home names the store, a backend or the storage module, so no
    /// page or action has a second path to the data.
    @Test func theHomeReachesDataOnlyThroughTheRESTAPI() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let forbidden = try Regex(
            #"\bstore(\.|:)|OutpostBackend|SyncBackend|import OutpostStorage|import OutpostService\b|import OutpostDataTools|FeatureImporter|StoreCall"#
        )
        for line in ["let items = try store.portal.items()", "import OutpostStorage", "try await StoreCall.run {", "import OutpostDataTools"] {
            #expect(line.contains(forbidden), "\(line)")
        }
        let files = try Self.swiftFiles(in: "Sources/OutpostServer").filter { $0.hasPrefix("Home/") }
        #expect(files.count >= 8, "the home's files: \(files)")
        var offenders: [String] = []
        for name in files {
            let text = try String(contentsOf: root.appendingPathComponent("Sources/OutpostServer/\(name)"), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(forbidden) && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                offenders.append("\(name):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    /// SQL text, as `noSQLTextInTheServerOrTheCLI` finds it.
    static let sqlText = #"sql:|\bSELECT\s|\bINSERT\s+INTO\b|\bDELETE\s+FROM\b|\bCREATE\s+(TABLE|INDEX|TRIGGER)\b|\bPRAGMA\s|\bUPDATE\s+\S+\s+SET\b"#

    /// Issue 45: SQL is made below the storage seam only — in the backends and in the where
    /// compiler's `OutpostWhereSQL` — and storage says what was wrong with a value, never which
    /// HTTP parameter carried it (`StorageRefusal`; the HTTP layer and the use cases name it).
    @Test func sqlStaysBelowTheSeamAndStorageNamesNoParameter() throws {
        let sql = try Regex(Self.sqlText)
        for line in [#"let fragment = SQLFragment(sql: "x")"#, "SELECT count(*) FROM t", #""PRAGMA integrity_check""#] {
            #expect(line.contains(sql), "\(line)")
        }
        var offenders: [String] = []
        for module in [
            "OutpostWire", "OutpostGeometry", "OutpostSync", "OutpostStorage", "OutpostService", "OutpostServer", "OutpostConformance", "outpost",
        ] {
            offenders += try Self.lines(in: "Sources/\(module)", matching: sql)
        }
        #expect(offenders.isEmpty, "SQL above the seam:\n\(offenders.joined(separator: "\n"))")
        var naming: [String] = []
        for module in ["OutpostSpatiaLite", "OutpostPostgres", "OutpostStorage"] {
            naming += try Self.lines(in: "Sources/\(module)", containing: "invalidParameter(")
        }
        #expect(naming.isEmpty, "storage naming a request parameter; throw a StorageRefusal:\n\(naming.joined(separator: "\n"))")
    }

    /// Child processes are started through swift-subprocess, never Foundation's `Process`: on
    /// Linux it reads past a directory buffer for every open descriptor before it spawns, which
    /// crashed a test run holding ~1,400 (a server with as many connections would crash alike).
    @Test func noChildProcessThroughFoundation() throws {
        let process = try Regex(#"\bProcess\(\)|Process\.run\(|launchedProcess\("#)
        #expect("let p = Process()".contains(process) && !"ProcessInfo.processInfo".contains(process))
        var offenders: [String] = []
        for folder in ["Sources", "Tests"] {
            for module in try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(folder).path).sorted() {
                offenders += try Self.lines(in: "\(folder)/\(module)", matching: process)
            }
        }
        offenders = offenders.filter { !$0.contains("SourceRulesTests.swift") }
        #expect(offenders.isEmpty, "Foundation's Process; use Subprocess (ExternalTool in tests):\n\(offenders.joined(separator: "\n"))")
    }

    /// The HTTP layer and the CLI know no database library, and no storage module knows HTTP.
    @Test func theServerAndTheCLIImportNoDatabaseLibraryAndStorageNoHTTP() throws {
        for (module, forbidden) in [
            ("Sources/OutpostServer", "import GRDB"), ("Sources/outpost", "import GRDB"),
            ("Sources/OutpostStorage", "import GRDB"), ("Sources/OutpostStorage", "import Hummingbird"),
            ("Sources/OutpostSpatiaLite", "import Hummingbird"),
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
        for module in ["Sources/OutpostSpatiaLite", "Sources/OutpostServer", "Sources/OutpostClient", "Sources/OutpostSync"] {
            let offenders = try Self.lines(in: module, containing: "Date().timeIntervalSince1970")
                .filter { !$0.contains("WallClock.swift") && !$0.contains("Migrations") }
            #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
        }
    }

    /// The HTTP layer and the use cases know no backend, no client library and no database
    /// library (issue 45): the composition root (`Sources/outpost`) picks the backend. Neither
    /// a file imports one nor does Package.swift give the target one.
    @Test func theServerAndTheServiceKnowNoBackendClientOrDatabaseLibrary() throws {
        let forbidden = ["OutpostSpatiaLite", "OutpostPostgres", "OutpostClient", "OutpostMigration", "OutpostObjectStorage", "GRDB"]
        let anImport = try Regex(
            #"^\s*(@\w+(\([^)]*\))?\s+)*((public|package|internal|fileprivate|private)\s+)?import\s+((typealias|struct|class|enum|protocol|let|var|func)\s+)?("#
                + forbidden.joined(separator: "|") + #")(\.|\s|$)"#)
        // The pattern itself: what it must catch, and the modules whose names merely start alike.
        for line in ["import GRDB", "@preconcurrency import OutpostSpatiaLite", "import struct GRDB.Row", "public import OutpostClient"] {
            #expect(line.contains(anImport), "\(line)")
        }
        for line in ["import OutpostStorage", "import GRDBQuery", "// import OutpostSpatiaLite"] { #expect(!line.contains(anImport), "\(line)") }
        for module in ["OutpostServer", "OutpostService"] {
            let imports = try Self.lines(in: "Sources/\(module)", matching: anImport)
            #expect(imports.isEmpty, "\(imports.joined(separator: "\n"))")
            let strings = try #require(try Self.packageTargetStrings(module), "Package.swift has no .target(name: \"\(module)\", …)")
            #expect(strings.contains("OutpostWire"), "the target's block was read: \(strings)")
            let listed = strings.filter(forbidden.contains)
            #expect(listed.isEmpty, "Package.swift: \(module) depends on \(listed)")
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

    /// Issue 45: no backend call on an async thread — the store, its users, jobs and result
    /// files are called from `async` code only through `StoreCall.run` (the one way to the
    /// blocking pool), so a slow query never holds a cooperative thread every request shares.
    /// How the source is read: `BlockingCallScanner`; that it finds what it should:
    /// `BlockingCallScannerTests`.
    @Test func noBackendCallOnAnAsyncThread() throws {
        let directory = Self.root.appendingPathComponent("Sources/OutpostServer")
        var files: [(name: String, text: String)] = []
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        while let name = enumerator?.nextObject() as? String {
            guard name.hasSuffix(".swift") else { continue }
            files.append((name, try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)))
        }
        #expect(files.count > 40, "the server's sources are read")
        let findings = BlockingCallScanner.findings(in: files)
        let listed = findings.map(\.description).joined(separator: "\n")
        #expect(findings.isEmpty, "backend calls on an async thread; wrap them in StoreCall.run:\n\(listed)")
        // One way to the blocking pool: `StoreCall`'s; and the jobs' own threads, `JobThreads`.
        let pools = try Self.lines(in: "Sources/OutpostServer", matching: try Regex(#"NIOThreadPool|runIfActive|JobRunner\.blocking"#))
            .filter { !$0.contains("/StoreCall.swift:") && !$0.contains("/Jobs/JobThreads.swift:") }
        #expect(pools.isEmpty, "\(pools)")
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
        for name in try swiftFiles(in: module) {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where matches(line) {
                found.append("\(module)/\(name):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }

    /// The module's Swift files, sub-folders included, as paths relative to it.
    static func swiftFiles(in module: String) throws -> [String] {
        let directory = root.appendingPathComponent(module)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue,
            let enumerator = FileManager.default.enumerator(atPath: directory.path)
        else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: directory.path]) }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
    }

    /// The strings of a `.target(name: …)` block of Package.swift (its name, dependencies,
    /// path, …), comment lines left out; nil when the manifest has no such target.
    static func packageTargetStrings(_ name: String) throws -> [String]? {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let code = manifest.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
        guard let opening = code.firstMatch(of: try Regex(#"\.target\(\s*name:\s*""# + name + #""\s*,"#)) else { return nil }
        var (depth, inString, strings, current) = (1, false, [String](), "")
        for character in code[opening.range.upperBound...] {
            if inString {
                if character == "\"" {
                    strings.append(current)
                    (inString, current) = (false, "")
                } else {
                    current.append(character)
                }
            } else if character == "\"" {
                inString = true
            } else if character == "(" {
                depth += 1
            } else if character == ")" {
                depth -= 1
                if depth == 0 { return strings }
            }
        }
        return nil
    }
}
