import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// docs/web-clients.md, "Cross-origin requests": each row a test.
@Suite struct CrossOriginTests {
    static let app = "http://127.0.0.1:9000"
    static let restricted = CrossOriginPolicy(allowedOrigins: "https://maps.example.com, http://127.0.0.1:9000")!

    static func formHeaders(origin: String) -> HTTPFields {
        var headers = OutpostServerTests.formHeaders
        headers[.origin] = origin
        return headers
    }

    @Test func theAllowedListParsesOriginsAndRefusesAnythingElse() throws {
        #expect(CrossOriginPolicy(allowedOrigins: "*") == .anyOrigin)
        let parsed = try #require(CrossOriginPolicy(allowedOrigins: "HTTPS://Maps.Example.com:443/, http://localhost:3000"))
        #expect(parsed.allowed == ["https://maps.example.com", "http://localhost:3000"])
        for bad in [
            "", " , ", "maps.example.com", "ftp://maps.example.com", "https://maps.example.com/path", "https://user@host", "null", "*, https://a.b",
            "http://h:80:80", "http://h:080",
        ] {
            #expect(CrossOriginPolicy(allowedOrigins: bad) == nil, "\(bad)")
        }
    }

    @Test func byDefaultEveryOriginIsEchoedWithCredentials() {
        let decision = CrossOriginPolicy.anyOrigin.decide(
            method: .get, origin: "https://anywhere.example", host: "127.0.0.1:8080", path: "/arcgis/rest/services")
        #expect(
            decision == .allow([.accessControlAllowOrigin: "https://anywhere.example", .accessControlAllowCredentials: "true", .vary: "Origin"]))
    }

    @Test func noOriginOrTheServersOwnIsNotCrossOrigin() {
        for policy in [CrossOriginPolicy.anyOrigin, Self.restricted] {
            #expect(policy.decide(method: .post, origin: nil, host: "outpost.example", path: "/arcgis/rest/services") == .route)
            // Behind a proxy speaking HTTPS the page's scheme differs from the server's: the host decides.
            #expect(policy.decide(method: .post, origin: "https://10.0.0.7:8443", host: "10.0.0.7:8443", path: "/arcgis/rest/services") == .route)
        }
        #expect(
            CrossOriginPolicy.anyOrigin.decide(method: .post, origin: "https://outpost.example", host: "outpost.example", path: "/") == .route)
    }

    /// DNS rebinding: a page at a name its author points at the server's address is the
    /// server's own to the browser. With a list, only an IP or `localhost` host is taken as
    /// the server's own; by a name, the server's origin must be listed.
    @Test func withAListTheServersOwnPagesByNameMustBeListed() throws {
        let rebound = "http://rebind.attacker.example:8080"
        #expect(
            Self.restricted.decide(method: .post, origin: rebound, host: "rebind.attacker.example:8080", path: "/arcgis/rest/services")
                == .refuse(origin: rebound))
        let listed = try #require(CrossOriginPolicy(allowedOrigins: "https://gis.example.org"))
        #expect(listed.decide(method: .post, origin: "https://gis.example.org", host: "gis.example.org", path: "/") == .route)
        #expect(Self.restricted.decide(method: .post, origin: "http://localhost:8080", host: "localhost:8080", path: "/") == .route)
        #expect(Self.restricted.decide(method: .post, origin: "http://[::1]:8080", host: "[::1]:8080", path: "/") == .route)
    }

    /// A `<script>` or `<img>` elsewhere sends no `Origin`, only fetch metadata and a
    /// `Referer`: with a list, its page is judged by the `Referer`'s origin, and refused
    /// without one. Clients that are not browsers send neither, and are routed.
    @Test func withAListLoadsWithoutOriginAreJudgedByTheirPage() {
        let path = "/arcgis/rest/services/Demo/FeatureServer/2/query"
        func decide(_ site: String?, _ referer: String?, host: String = "10.0.0.7:8080") -> CrossOriginPolicy.Decision {
            Self.restricted.decide(method: .get, origin: nil, host: host, path: path, fetchSite: site, referer: referer)
        }
        #expect(decide(nil, nil) == .route, "a client that is not a browser")
        #expect(decide("none", nil) == .route, "an address typed or bookmarked")
        #expect(decide("cross-site", "https://maps.example.com/app/index.html?x=1") == .route, "a listed page's script")
        #expect(decide("cross-site", "https://evil.example/page") == .refuse(origin: "https://evil.example"))
        #expect(decide("cross-site", nil) == .refuse(origin: "a page that names no origin"))
        #expect(decide("same-origin", nil) == .route, "the server's own page, by IP")
        #expect(decide("same-origin", nil, host: "rebind.attacker.example:8080") == .refuse(origin: "http://rebind.attacker.example:8080"))
        // Every origin allowed: nothing is refused.
        #expect(CrossOriginPolicy.anyOrigin.decide(method: .get, origin: nil, host: "h", path: path, fetchSite: "cross-site") == .route)
    }

    @Test func aRestrictedListRefusesOtherOriginsButNotTheTokenService() {
        let elsewhere = "https://evil.example"
        #expect(
            Self.restricted.decide(method: .post, origin: elsewhere, host: "h", path: "/arcgis/rest/services/Demo/FeatureServer/0/applyEdits")
                == .refuse(origin: elsewhere))
        #expect(Self.restricted.decide(method: .get, origin: "null", host: "h", path: "/arcgis/rest/services") == .refuse(origin: "null"))
        for path in ["/arcgis/tokens/generateToken", "/arcgis/sharing/rest/generateToken"] {
            guard case .allow = Self.restricted.decide(method: .post, origin: elsewhere, host: "h", path: path) else {
                Issue.record("the token service refused \(elsewhere) at \(path)")
                continue
            }
        }
        guard
            case .allow(let headers) = Self.restricted.decide(method: .get, origin: "https://MAPS.example.com", host: "h", path: "/arcgis/rest/info")
        else {
            Issue.record("an allowed origin in another case was refused")
            return
        }
        #expect(headers[.accessControlAllowOrigin] == "https://MAPS.example.com")
    }

    @Test func aPreflightIsToldTheMethodsAndTheHeadersItAsksFor() {
        let decision = CrossOriginPolicy.anyOrigin.decide(
            method: .options, origin: Self.app, host: "127.0.0.1:8080", path: "/arcgis/rest/services/Demo/FeatureServer/2/applyEdits",
            requestedMethod: "POST", requestedHeaders: "x-esri-authorization, content-type")
        guard case .preflight(let headers) = decision else {
            Issue.record("not a preflight: \(decision)")
            return
        }
        #expect(headers[.accessControlAllowMethods] == "GET, POST, HEAD, OPTIONS")
        #expect(headers[.accessControlAllowHeaders] == "x-esri-authorization, content-type")
        #expect(headers[.accessControlMaxAge] == "86400")
        let hostile = CrossOriginPolicy.anyOrigin.decide(
            method: .options, origin: Self.app, host: "h", path: "/", requestedMethod: "POST", requestedHeaders: "a\r\nSet-Cookie: x=1")
        guard case .preflight(let echoed) = hostile else {
            Issue.record("not a preflight: \(hostile)")
            return
        }
        #expect(echoed[.accessControlAllowHeaders] == nil)
    }

    @Test func answersCarryTheHeadersErrorsAndNotFoundIncluded() async throws {
        try await withFreshDemoApp { client, _ in
            let origin: HTTPFields = [.origin: Self.app]
            for uri in [
                "\(layerURL)/query?where=1%3D1&returnCountOnly=true&f=json", "/arcgis/rest/services/NoSuch/FeatureServer?f=json", "/arcgis/nowhere",
            ] {
                try await client.execute(uri: uri, method: .get, headers: origin) { response in
                    #expect(response.headers[.accessControlAllowOrigin] == Self.app, "\(uri)")
                    #expect(response.headers[.vary] == "Origin", "\(uri)")
                }
            }
            let preflight: HTTPFields = [.origin: Self.app, .accessControlRequestMethod: "POST", .accessControlRequestHeaders: "content-type"]
            try await client.execute(uri: "\(layerURL)/applyEdits", method: .options, headers: preflight) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.accessControlAllowOrigin] == Self.app)
                #expect(response.headers[.accessControlAllowMethods]?.contains("POST") == true)
            }
            try await client.execute(uri: "\(layerURL)/query", method: .options) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.allow] == "GET, POST, HEAD, OPTIONS")
            }
        }
    }

    @Test func aRefusedOriginChangesNothingAndAnAllowedOneEdits() async throws {
        try await withFreshDemoApp(options: ServerOptions(crossOrigin: Self.restricted)) { client, _ in
            func count() async throws -> Int64? {
                try await client.execute(uri: "\(layerURL)/query?where=1%3D1&returnCountOnly=true&f=json", method: .get) {
                    json($0)["count"]?.int64Value
                }
            }
            let before = try await count()
            let add = form([("f", "json"), ("adds", #"[{"attributes":{},"geometry":{"x":1,"y":2}}]"#)])
            let evil = Self.formHeaders(origin: "https://evil.example")
            try await client.execute(uri: "\(layerURL)/applyEdits", method: .post, headers: evil, body: add) { response in
                #expect(response.headers[.accessControlAllowOrigin] == nil)
                #expect(json(response)["error"]?["code"] == 403)
            }
            #expect(try await count() == before)
            try await client.execute(uri: "\(layerURL)/applyEdits", method: .post, headers: Self.formHeaders(origin: Self.app), body: add) {
                response in
                #expect(response.headers[.accessControlAllowOrigin] == Self.app)
                #expect(json(response)["addResults"]?[0]?["success"] == true)
            }
            #expect(try await count() == before.map { $0 + 1 })
        }
    }

    @Test func theTileFastPathAnswersOriginsAsTheRouterDoes() async throws {
        let store = try makeDemoStore(label: "fast-path-cors")
        var configured = ServerOptions(crossOrigin: Self.restricted)
        // A set is known for 5 s by default; a loaded machine once took longer between these
        // requests, and the second went to the router as the set's first read again.
        configured.tileCache = TileCache(setLifetime: .seconds(600))
        let options = configured
        try await buildApplication(store: store, port: 0, options: options).test(.live) { client in
            let uri = "/arcgis/rest/services/DemoBasemap/MapServer/tile/3/2/5"
            for expectedFastAnswers in [0, 1] {
                try await client.execute(uri: uri, method: .get, headers: [.origin: Self.app]) { response in
                    #expect(response.status == .ok && response.headers[.accessControlAllowOrigin] == Self.app)
                    #expect(response.headers[.vary] == "Origin")
                }
                #expect(options.tileCache.fastAnswers.load(ordering: .relaxed) == expectedFastAnswers)
            }
            // A refused origin is left to the router, which refuses it.
            try await client.execute(uri: uri, method: .get, headers: [.origin: "https://evil.example"]) { response in
                #expect(response.headers[.accessControlAllowOrigin] == nil && json(response)["error"]?["code"] == 403)
            }
            #expect(options.tileCache.fastAnswers.load(ordering: .relaxed) == 1)
        }
    }
}

extension CrossOriginPolicy {
    /// A request as the tests describe it: its origin and host, no fetch metadata unless given.
    func decide(
        method: HTTPRequest.Method, origin: String?, host: String?, path: String, fetchSite: String? = nil, referer: String? = nil,
        requestedMethod: String? = nil, requestedHeaders: String? = nil
    ) -> Decision {
        decide(
            Request(
                method: method, path: path, origin: origin, host: host, fetchSite: fetchSite, referer: referer, requestedMethod: requestedMethod,
                requestedHeaders: requestedHeaders))
    }
}
