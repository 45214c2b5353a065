import OutpostClient
import OutpostTesting
import XCTest

/// `OutpostTestServer` from XCTest (docs/testing-your-app.md, "In your Swift tests"): the same
/// plain async API, in `setUp`/`tearDown`, with an injected fault read back as ArcGIS shapes it.
final class XCTestUsageTests: XCTestCase {
    private var server: OutpostTestServer!

    override func setUp() async throws {
        server = try await OutpostTestServer.start()
    }

    override func tearDown() async throws {
        await server.stop()
    }

    func testAnInjectedErrorReachesTheClientAsArcGISShapesIt() async throws {
        let rule = try await server.faults.inject(
            FaultRule(operation: "query", error: .init(code: 503, message: "Injected outage"), count: 1))
        let demo = ServiceConnection(serviceURL: server.featureServer(), retryWindow: .zero)
        do {
            _ = try await demo.getJSON(demo.url("0/query"), [("where", "1=1"), ("returnCountOnly", "true")])
            XCTFail("the injected error was not answered")
        } catch {
            XCTAssertTrue("\(error)".contains("Injected outage"), "\(error)")
        }
        let answer = try await demo.getJSON(demo.url("0/query"), [("where", "1=1"), ("returnCountOnly", "true")])
        XCTAssertNotNil(answer["count"], "the rule fired once: \(answer)")
        let fired = try await server.faults.rule(rule)?.fired
        XCTAssertEqual(fired, 1)
    }
}
