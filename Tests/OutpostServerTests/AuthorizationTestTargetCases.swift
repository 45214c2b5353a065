import Foundation
import OutpostWire
import Testing

@testable import OutpostServer

/// The matrix's requests for a test target's control API (`AuthorizationTestTargetRows`):
/// every route as every caller; only an admin's token passes (API keys never), and a refused
/// change changes nothing. The page and its script are answered to anyone.
extension MatrixCase {
    static let control = "/\(TestTargetPaths.root)"

    /// What the control API answers an admin at `path` (set-up and checks).
    static func asAdmin(_ s: AuthorizationSession, _ path: String, _ fields: [(String, String)]? = nil) async throws -> JSONValue {
        guard let fields else { return try await s.made(.get("\(control)/\(path)?f=json"), as: .admin) }
        return try await s.made(Probe(path: "\(control)/\(path)", fields: [("f", "json")] + fields), as: .admin)
    }

    /// A fault rule no request of the matrix matches (a service that does not exist).
    static func harmlessRule(_ service: String) -> String { #"{"service": "\#(service)", "error": {"code": 500, "message": "Injected"}}"# }

    static func ruleIds(_ s: AuthorizationSession) async throws -> [String] {
        try await asAdmin(s, "faults")["rules"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    static func snapshotNames(_ s: AuthorizationSession) async throws -> [String] {
        try await asAdmin(s, "snapshots")["snapshots"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
    }

    static func post(_ path: String, _ fields: [(String, String)] = [], object: String = "") -> Probe {
        Probe(path: "\(control)/\(path)", fields: [("f", "json")] + fields, object: object)
    }

    static var testTargetCases: [MatrixCase] { controlPageCases + clockCases + faultCases + journalCases + snapshotCases }

    static var controlPageCases: [MatrixCase] {
        [
            .read("_outpost") { _ in "\(control)/" },
            .read("_outpost/page.js") { _ in "\(control)/page.js" },
        ]
    }

    static var clockCases: [MatrixCase] {
        [
            .read("_outpost/clock") { _ in "\(control)/clock?f=json" },
            .post(
                "_outpost/clock/advance",
                make: { s, _ in
                    _ = try await asAdmin(s, "clock/reset", [])
                    return post("clock/advance", [("hours", "1")])
                }, happened: { s, _ in try await asAdmin(s, "clock")["offset"]?.int64Value == 3_600_000 }),
            .post(
                "_outpost/clock/set",
                make: { s, _ in
                    let time = 1_600_000_000_000 + Int64(s.unique(""))! * 86_400_000
                    return post("clock/set", [("time", "\(time)")], object: "\(time)")
                },
                happened: { s, p in
                    let now = try await asAdmin(s, "clock")["now"]?.int64Value ?? 0
                    return abs(now - Int64(p.object)!) < 60_000
                }),
            .post(
                "_outpost/clock/reset",
                make: { s, _ in
                    _ = try await asAdmin(s, "clock/advance", [("days", "2")])
                    return post("clock/reset")
                }, happened: { s, _ in try await asAdmin(s, "clock")["offset"]?.int64Value == 0 }),
        ]
    }

    static var faultCases: [MatrixCase] {
        [
            .read("_outpost/faults", "list") { _ in "\(control)/faults?f=json" },
            .post(
                "_outpost/faults", "add",
                make: { s, _ in
                    let service = s.unique("NoSuchService")
                    return post("faults", [("rule", harmlessRule(service))], object: service)
                },
                happened: { s, p in try await asAdmin(s, "faults").jsonText.contains(#""\#(p.object)""#) }),
            .post(
                "_outpost/faults/:id/delete",
                make: { s, _ in
                    let rule = try await asAdmin(s, "faults", [("rule", harmlessRule(s.unique("NoSuchService")))])
                    let id = try #require(rule["rule"]?["id"]?.stringValue)
                    return post("faults/\(id)/delete", object: id)
                }, happened: { s, p in try await !ruleIds(s).contains(p.object) }),
            .post(
                "_outpost/faults/clear",
                make: { s, _ in
                    _ = try await asAdmin(s, "faults", [("rule", harmlessRule(s.unique("NoSuchService")))])
                    return post("faults/clear")
                }, happened: { s, _ in try await ruleIds(s).isEmpty }),
            .read("_outpost/jobs") { _ in "\(control)/jobs?f=json" },
            // No job is held: an admin gets "not found", everyone else the admission's refusal.
            MatrixCase(row: "_outpost/jobs/:id/release", lenient: true, make: { _, _ in post("jobs/nosuchjob/release") }),
            MatrixCase(row: "_outpost/jobs/:id/fail", lenient: true, make: { _, _ in post("jobs/nosuchjob/fail") }),
        ]
    }

    static var journalCases: [MatrixCase] {
        [
            .read("_outpost/journal") { _ in "\(control)/journal?f=json&limit=5" },
            .read("_outpost/journal/count") { _ in "\(control)/journal/count?f=json" },
            .read("_outpost/journal/har") { _ in "\(control)/journal/har?f=json" },
            .post("_outpost/journal/verify", make: { _, _ in post("journal/verify", [("pattern", #"{"operation": "query"}"#), ("atLeast", "0")]) }),
            .post(
                "_outpost/journal/clear",
                make: { s, _ in
                    // Something in the journal to clear: a request outside the control API.
                    _ = try await s.send(.get("/arcgis/rest/info?f=json"), as: .anonymous)
                    return post("journal/clear")
                },
                happened: { s, _ in try await asAdmin(s, "journal/count")["count"]?.int64Value == 0 }),
        ]
    }

    static var snapshotCases: [MatrixCase] {
        [
            .read("_outpost/snapshots", "list") { _ in "\(control)/snapshots?f=json" },
            .post(
                "_outpost/snapshots", "save",
                make: { s, _ in
                    let name = s.unique("matrix")
                    return post("snapshots", [("name", name)], object: name)
                }, happened: { s, p in try await snapshotNames(s).contains(p.object) }),
            .post(
                "_outpost/snapshots/:name/delete",
                make: { s, _ in
                    let name = s.unique("matrix")
                    _ = try await asAdmin(s, "snapshots", [("name", name)])
                    return post("snapshots/\(name)/delete", object: name)
                }, happened: { s, p in try await !snapshotNames(s).contains(p.object) }),
            // Restoring or resetting would roll the matrix's own objects back: an admin's
            // restore names no snapshot (not found), an admin's reset is sent as a GET (405).
            MatrixCase(row: "_outpost/snapshots/:name/restore", lenient: true, make: { _, _ in post("snapshots/nosuchsnapshot/restore") }),
            MatrixCase(row: "_outpost/reset", make: { _, who in who == .admin ? .get("\(control)/reset?f=json") : post("reset") }),
        ]
    }
}
