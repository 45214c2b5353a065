import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The authorization matrix (issue 43): every row of `AuthorizationTable` requested by an
/// anonymous caller, a viewer, another editor, the owner, an admin and the owner's two API
/// keys (one editing, one read-only), on both backends; each
/// answer is what the row says (allowed, or refused with the row's code), a refused change
/// changed nothing and an allowed one happened. Then every route the router holds is sent
/// as an anonymous caller (and as a viewer where editors are needed), and the job steps run.
@Suite struct AuthorizationMatrixTests {
    /// Token security; a job share big enough for the matrix's own jobs.
    /// A test target too, so its control API is in the matrix (`testTargetCases`).
    static var options: ServerOptions {
        var options = ServerOptions(requireAuth: true, jobLimits: JobLimits(running: 2, queued: 64, perUser: 16))
        options.testTarget = TestTarget()
        return options
    }

    static var cases: [MatrixCase] {
        MatrixCase.featureServiceCases + MatrixCase.syncCases + MatrixCase.versionCases + MatrixCase.tileCases + MatrixCase.geocodeCases
            + MatrixCase.routeCases
            + MatrixCase.packagingCases
            + MatrixCase.directoryCases + MatrixCase.portalReadCases + MatrixCase.portalChangeCases + MatrixCase.oauthCases
            + MatrixCase.testTargetCases + MatrixCase.adminCases + MatrixCase.homeCases + MatrixCase.publishCases + MatrixCase.analyzeCases
    }

    @Test func everyRowHasACase() {
        let covered = Set(Self.cases.map(\.row))
        let missing = AuthorizationTable.server.rows.filter { !covered.contains($0.path) }
        #expect(missing.isEmpty, "rows without a request in the matrix: \(missing)")
        #expect(Self.cases.allSatisfy { AuthorizationTable.server.row($0.row) != nil }, "cases of no row")
        #expect(Set(AuthorizationTable.server.rows.map(\.path)).count == AuthorizationTable.server.rows.count, "a path in two rows")
    }

    @Test(arguments: DemoBackend.all)
    func everyRouteAnswersEachCallerAsItsRowSays(_ backend: DemoBackend) async throws {
        let store = try backend.make()
        let app = Application(router: buildRouter(store: store, options: Self.options))
        try await app.test(.router) { client in
            let began = ContinuousClock.now
            var session = try AuthorizationSession(client: client, store: store)
            try await session.makeObjects()
            let fixture = ContinuousClock.now - began
            var tally = Tally()
            try await Self.run(Self.cases, in: session, tally: &tally)
            try await Self.sweep(session, tally: &tally)
            try await session.checkJobSteps(tally: &tally)
            try await session.checkNamedObjects(tally: &tally)
            print(
                """
                Authorization matrix on \(backend.name): \(tally.cases) cases of \(AuthorizationTable.server.rows.count) rows, \
                \(tally.requests) requests as the seven callers, \(tally.swept) admission requests over \(AuthorizationTableTests.routes.count) \
                routes, \(tally.steps) job steps and named objects; fixture \(fixture), all \(ContinuousClock.now - began); \(tally.failures.count) disagreements
                """)
            for failure in tally.failures { print("  ✗ \(backend.name): \(failure)") }
        }
    }

    /// Sends each case as each caller, then a change's GET as each caller.
    static func run(_ cases: [MatrixCase], in session: AuthorizationSession, tally: inout Tally) async throws {
        let table = AuthorizationTable.server
        for matrixCase in cases {
            guard let row = table.row(matrixCase.row) else { continue }
            tally.cases += 1
            var last: Probe?
            for who in Who.allCases {
                let probe = try await matrixCase.make(session, who)
                last = probe
                let answer = try await session.send(probe, as: who)
                tally.requests += 1
                var expected = matrixCase.expected(table, method: probe.method, who: who, path: probe.path)
                tally.check(
                    agrees(answer, expected, lenient: matrixCase.lenient),
                    "\(matrixCase) \(probe.method) as \(who): expected \(expected.map { "\($0)" } ?? "allowed"), got \(answer)")
                if expected == nil, row.right == .eachChangeable {
                    // Each item named is changed only if the caller may change it.
                    let entry = answer.json["results"]?[0]
                    expected = AuthorizationTable.Row(.portal, "", .change, .editor, .item, .changeable(hidden: .itemHidden))
                        .refusal(.post, caller: who.user, subject: matrixCase.subject)
                    let code = Int(entry?["error"]?["code"]?.int64Value ?? 0)
                    let agreed = expected.map { $0.code == code } ?? (entry?["success"] == true)
                    tally.check(agreed, "\(matrixCase) entry as \(who): expected \(expected.map { "\($0)" } ?? "changed"), got \(answer)")
                }
                if expected == nil, let shows = matrixCase.shows,
                    let subject = matrixCase.subject(for: who, row: row, path: probe.path), let wanted = row.lists(subject, to: who.user)
                {
                    tally.check(
                        shows(session, answer) == wanted,
                        "\(matrixCase) as \(who): the \(subject) object should \(wanted ? "" : "not ")be listed, got \(answer)")
                }
                if let happened = matrixCase.happened {
                    let did = try await happened(session, probe)
                    tally.check(
                        did == (expected == nil),
                        "\(matrixCase) as \(who): the change \(did ? "happened" : "did not happen") (\(expected == nil ? "allowed" : "refused")): \(answer)"
                    )
                }
            }
            guard row.methods == .change || row.methods == .stateChanging, let path = last?.path else { continue }
            for who in Who.allCases {
                let answer = try await session.send(.get(path), as: who)
                tally.requests += 1
                let expected = row.refusal(.get, caller: who.user, subject: matrixCase.subject(for: who, row: row, path: path))
                tally.check(
                    agrees(answer, expected, lenient: false),
                    "\(matrixCase) GET as \(who): expected \(expected.map { "\($0)" } ?? "allowed"), got \(answer)")
            }
        }
    }

    /// Every route of the router, placeholders filled, as an anonymous caller (and as a viewer
    /// where an editor is needed): refused by the admission, or let through.
    static func sweep(_ session: AuthorizationSession, tally: inout Tally) async throws {
        let table = AuthorizationTable.server
        for route in AuthorizationTableTests.routes {
            guard let row = table.row(method: route.method, routerPath: route.path) else { continue }
            for who in [.editor, .admin].contains(row.admission) ? [Who.anonymous, .viewer] : [.anonymous] {
                let answer = try await session.send(Probe(method: route.method, path: fill(route.path), fields: [("f", "json")]), as: who)
                tally.swept += 1
                // A route open to anyone may still ask for a token (its right, `signedIn` with 499).
                var expected = row.admissionRefusal(caller: who.user)
                if expected == nil, who.user == nil, case .signedIn(let refusal) = row.right, refusal == .tokenRequired { expected = refusal }
                let agreed = expected.map { agrees(answer, $0, lenient: false) } ?? ![499, 498].contains(answer.refusal?.code ?? 0)
                tally.check(agreed, "\(route.method) \(route.path) as \(who): expected \(expected.map { "\($0)" } ?? "admitted"), got \(answer)")
            }
        }
    }

    /// A router path with its parameters filled: a service in a folder, `x1` for the rest.
    static func fill(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { part -> String in
            switch part {
            case "{service}": "Field"
            case "{serviceInFolder}": "Points"
            case "**": "x"
            default: part.hasPrefix("{") ? "x1" : String(part)
            }
        }.joined(separator: "/")
    }

    static func agrees(_ answer: Answer, _ expected: AuthorizationTable.Refusal?, lenient: Bool) -> Bool {
        let actual = answer.refusal
        if let expected { return actual.map { expected.matches(code: $0.code, message: $0.message) } ?? false }
        return lenient ? ![499, 498, 403].contains(actual?.code ?? 0) : actual == nil
    }
}

/// What the matrix counted, and where the server disagreed with the table.
struct Tally: Sendable {
    var cases = 0
    var requests = 0
    var swept = 0
    var steps = 0
    var failures: [String] = []

    mutating func check(_ agreed: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard !agreed else { return }
        failures.append(message())
        Issue.record(Comment(rawValue: message()), sourceLocation: sourceLocation)
    }
}
