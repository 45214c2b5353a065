import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Who may use a test target's control API and its page (docs/testing-your-app.md, "The page
/// and who may use the control API"): its own page (same origin) and clients that send no
/// `Origin`, at localhost, an IP address or the public URL's host; never a page elsewhere (no
/// CORS headers, preflights included) nor a name that DNS rebinding could point here.
@Suite struct ControlAPIGuardTests {
    static let open = ControlAPIGuard(publicURL: nil)
    static let proxied = ControlAPIGuard(publicURL: "https://outpost.example.com")

    @Test(arguments: [
        "127.0.0.1:8080", "127.0.0.1", "localhost:8080", "LOCALHOST", "app.localhost:3000", "[::1]:8080", "[::1]", "10.0.0.7:80",
    ])
    func loopbackNamesAndAddressesAreAdmitted(_ host: String) {
        #expect(Self.open.refusal(origin: nil, host: host) == nil)
    }

    @Test(arguments: [
        "evil.example:8080", "evil.example", "127.0.0.1.nip.io:8080", "localhost.evil.example", "outpost.example.com", "bad host", "h:99999",
    ])
    func otherNamesAreRefused(_ host: String) {
        #expect(Self.open.refusal(origin: nil, host: host) != nil)
    }

    @Test func thePublicURLsHostIsAdmittedAndItsOrigin() {
        #expect(Self.proxied.refusal(origin: nil, host: "outpost.example.com") == nil)
        #expect(Self.proxied.refusal(origin: nil, host: "OUTPOST.example.com:443") == nil)
        #expect(Self.proxied.refusal(origin: nil, host: "other.example.com") != nil)
        // Behind a proxy that passes on its own Host, the page at the public URL is the server's own.
        #expect(Self.proxied.refusal(origin: "https://outpost.example.com", host: "127.0.0.1:8080") == nil)
        #expect(Self.proxied.refusal(origin: "https://evil.example.com", host: "outpost.example.com") != nil)
    }

    @Test func onlyTheRequestsOwnOriginIsAdmitted() {
        #expect(Self.open.refusal(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080") == nil)
        #expect(Self.open.refusal(origin: "http://LOCALHOST:8080", host: "localhost:8080") == nil)
        #expect(Self.open.refusal(origin: "http://localhost", host: "localhost:80") == nil)
        for origin in [
            "null", "https://evil.example", "http://127.0.0.1:8081", "http://localhost:8080", "http://127.0.0.1:8080/path", "", "garbage",
        ] {
            #expect(Self.open.refusal(origin: origin, host: "127.0.0.1:8080") != nil, "\(origin)")
        }
        #expect(Self.open.refusal(origin: "http://127.0.0.1:8080", host: nil) != nil)
    }

    /// Live, without token security: a page elsewhere (and `null`) gets no CORS headers, its
    /// reads and changes are refused with a 403 envelope and change nothing; a rebinding name is
    /// refused; the server's own page, and clients without `Origin`, are served.
    @Test func aForeignPageNeitherReadsNorDrives() async throws {
        let store = try makeDemoStore(label: "control-guard")
        let target = TestTarget()
        var options = ServerOptions()
        options.testTarget = target
        try await buildApplication(store: store, port: 0, options: options).test(.live) { client in
            for origin in ["https://evil.example", "null"] {
                try await client.execute(uri: "/_outpost/journal?f=json", method: .get, headers: [.origin: origin]) { response in
                    #expect(response.headers[.accessControlAllowOrigin] == nil)
                    #expect(json(response)["error"]?["code"] == 403 && json(response)["entries"] == nil, "\(String(buffer: response.body))")
                }
                let preflight: HTTPFields = [.origin: origin, .accessControlRequestMethod: "POST"]
                try await client.execute(uri: "/_outpost/reset", method: .options, headers: preflight) { response in
                    #expect(response.headers[.accessControlAllowOrigin] == nil && response.headers[.accessControlAllowMethods] == nil)
                }
                var headers = formHeaders
                headers[.origin] = origin
                try await client.execute(
                    uri: "/_outpost/clock/advance", method: .post, headers: headers, body: form([("hours", "5"), ("f", "json")])
                ) {
                    #expect(json($0)["error"]?["code"] == 403)
                }
                try await client.execute(uri: "/_outpost/", method: .get, headers: [.origin: origin]) { #expect($0.status == .forbidden) }
            }
            #expect(target.clock.offsetMilliseconds == 0, "a foreign page moved the clock")
            // The server's own page (the live client names `localhost`), and a client that sends no Origin.
            try await client.execute(uri: "/_outpost/", method: .get) {
                #expect($0.status == .ok && $0.headers[.contentType]?.hasPrefix("text/html") == true)
            }
            var own = formHeaders
            own[.origin] = "http://localhost"
            try await client.execute(uri: "/_outpost/clock/advance", method: .post, headers: own, body: form([("hours", "5"), ("f", "json")])) {
                #expect(json($0)["error"] == nil, "\(String(buffer: $0.body))")
            }
            #expect(target.clock.offsetMilliseconds == 5 * 3_600_000, "the server's own page moves the clock")
            // The ArcGIS API keeps its cross-origin policy: any origin, echoed.
            try await client.execute(uri: "/arcgis/rest/info?f=json", method: .get, headers: [.origin: "https://evil.example"]) {
                #expect($0.headers[.accessControlAllowOrigin] == "https://evil.example")
            }
        }
    }

    // A name DNS rebinding points here is refused by its own `Host`, which test clients set
    // themselves: interop `test_test_target_attacks.py` sends it raw.
}
