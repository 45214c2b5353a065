import Foundation
import Testing

/// `BlockingCallScanner` finds what `SourceRulesTests.noBackendCallOnAnAsyncThread` forbids:
/// planted violations are found, the same calls through the blocking pool are not.
@Suite struct BlockingCallScannerTests {
    static func findings(_ text: String, exempt: Set<String> = []) -> [String] {
        BlockingCallScanner.findings(in: [(name: "Planted.swift", text: text)], exempt: exempt).map(\.text)
    }

    @Test func aStoreCallInAnAsyncFunctionIsFoundAndNotInsideTheBlockingPool() {
        let direct = """
            struct C<Backend: OutpostBackend> {
                let store: Backend
                func count(_ c: Context) async throws -> Int {
                    let layer = try c.layerId()
                    return try store.features.count(service: "s", layer: layer)
                }
            }
            """
        #expect(Self.findings(direct) == [#"return try store.features.count(service: "s", layer: layer)"#])
        let pooled = """
            struct C<Backend: OutpostBackend> {
                let store: Backend
                func count(_ c: Context) async throws -> Int {
                    let layer = try c.layerId()
                    return try await StoreCall.run { try store.features.count(service: "s", layer: layer) }
                }
            }
            """
        #expect(Self.findings(pooled).isEmpty)
        #expect(Self.findings(direct, exempt: ["Planted.swift"]).isEmpty)
    }

    @Test func routeHandlersAreAsyncUnlessRegisteredWithStore() {
        let routes = """
            extension C {
                func addRoutes(to routes: ArcGISRoutes) {
                    routes.viewers
                        .read("a", store: { _, c in try list(c) })
                        .read("b") { _, c in RESTResponse.json(try store.portal.items(), parameters: c.form.parameters) }
                        .read("c") { _, c in try await StoreCall.run { try list(c) } }
                        .read("h") { _, c in try await StoreCall.runHeavy(gate) { try list(c) } }
                        .read("i") { _, c in try await StoreCall.runHeavyWhenFree(gate, patience: .seconds(1)) { try list(c) } }
                        .read("d") { _, c in try list(c) }
                }
                func list(_ c: Context) throws -> Response { try store.portal.items() }
            }
            """
        #expect(
            Self.findings(routes) == [
                #".read("b") { _, c in RESTResponse.json(try store.portal.items(), parameters: c.form.parameters) }"#,
                #".read("d") { _, c in try list(c) }"#,
            ])
    }

    @Test func helpersThatCallTheStoreAreFollowedAcrossFunctionsAndTypes() {
        let helpers = """
            struct Authenticator {
                let users: any UserDirectory
                func admission(_ token: String) throws -> ServerUser? { try user(token) }
                private func user(_ token: String) throws -> ServerUser? { try users.check(token: token).user }
            }
            struct Middleware {
                let authenticator: Authenticator
                func handle(_ request: Request) async throws -> Response {
                    let user = try authenticator.admission(request.token)
                    let other = try await StoreCall.run { try authenticator.admission(request.token) }
                    return Response(user, other)
                }
            }
            struct Sweeper {
                func run() async throws {
                    try await runEvery(interval) { sweep() }
                    try await runEvery(interval) { _ = try? await StoreCall.run { sweep() } }
                }
                func sweep() { files.sweep(of: store) }
            }
            """
        #expect(Self.findings(helpers) == ["let user = try authenticator.admission(request.token)", "try await runEvery(interval) { sweep() }"])
    }

    @Test func closuresThatAwaitOrSpawnTasksAreAsyncAndCommentsAndTextAreNotCode() {
        let closures = """
            func start(store: some OutpostBackend) {
                application.beforeServerStarts { try await store.jobs.failUnfinished() }
                Task { store.maintenance.compact() }
                let text = "store.portal.items() in a string, \\(try store.catalog().services.count) in an interpolation"
                // store.portal.items() in a comment
            }
            func page() async -> String {
                // store.portal.items() in a comment
                let note = "store.portal.items() in a string"
                let raw = #"store.portal.items() \\(raw)"#
                let value = "\\(try store.catalog().services.count) services"
                return note + raw + value
            }
            """
        #expect(
            Self.findings(closures) == [
                "application.beforeServerStarts { try await store.jobs.failUnfinished() }", "Task { store.maintenance.compact() }",
                #"let value = "\(try store.catalog().services.count) services""#,
            ])
    }

    /// The real server's sources, with one violation planted: found, and only it.
    @Test func aViolationPlantedInTheServerIsFound() throws {
        let directory = SourceRulesTests.root.appendingPathComponent("Sources/OutpostServer")
        var text = try String(contentsOf: directory.appendingPathComponent("FeatureServer/AttachmentsController.swift"), encoding: .utf8)
        text += """

            extension AttachmentsController {
                func planted(_ context: OutpostRequestContext) async throws -> Response {
                    _ = try storedAttachment(context)
                    return Response(status: .ok)
                }
            }
            """
        let findings = BlockingCallScanner.findings(in: [("AttachmentsController.swift", text)])
        #expect(findings.map(\.text) == ["_ = try storedAttachment(context)"])
    }
}
