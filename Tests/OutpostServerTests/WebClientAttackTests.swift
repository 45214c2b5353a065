import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Attacks on cross-origin requests (docs/web-clients.md) and editor tracking
/// (docs/decisions.md, "Editor tracking on every path / of syncs / of versions"). A test that
/// was a finding failed before its fix (docs/web-clients.md names the rule); the others are
/// attacks that held.
@Suite struct WebClientAttackTests {
    static let app = "http://127.0.0.1:9000"
    static let restricted = CrossOriginPolicy(allowedOrigins: "https://maps.example.com, http://127.0.0.1:9000")!

    /// What a browser sends for a resource a page elsewhere loads without CORS (`<script>`,
    /// `<img>`, a top-level GET navigation): no `Origin` header, only the Fetch metadata.
    static func crossSite(dest: String) -> HTTPFields {
        [
            HTTPField.Name("Sec-Fetch-Site")!: "cross-site", HTTPField.Name("Sec-Fetch-Mode")!: "no-cors",
            HTTPField.Name("Sec-Fetch-Dest")!: dest,
        ]
    }

    // MARK: Cross-origin: findings, fixed

    /// Was a finding: a page elsewhere reads data past a restricted `allowed-origins` through JSONP:
    /// a classic `<script src=…&callback=…>` carries no `Origin`, so the request counts as the
    /// server's own and the answer is script the page runs. The refusal exists so that "a page
    /// on the open internet" cannot use an Outpost only its visitor's network reaches.
    @Test func jsonpFromAPageElsewhereReadsPastARestrictedList() async throws {
        try await withFreshDemoApp(options: ServerOptions(crossOrigin: Self.restricted)) { client, _ in
            let uri = "\(layerURL)/query?where=1%3D1&returnCountOnly=true&f=json&callback=stolen"
            try await client.execute(uri: uri, method: .get, headers: Self.crossSite(dest: "script")) { response in
                let body = String(buffer: response.body)
                #expect(!body.hasPrefix("stolen("), "a script elsewhere read: \(body.prefix(80))")
            }
        }
    }

    /// Was a finding: state-changing operations that answer GET without token security
    /// (`createReplica`, `unRegisterReplica`, as restapi sends them) run for an `<img>` or a
    /// link on a page elsewhere: no `Origin` is sent, so a restricted list never refuses them.
    @Test func anImageElsewhereCreatesAndUnregistersReplicasPastARestrictedList() async throws {
        try await withFreshDemoApp(options: ServerOptions(crossOrigin: Self.restricted)) { client, store in
            let created = try await createTreeReplica(client, name: "crew")
            let id = try #require(created["replicaID"]?.stringValue, "\(created)")
            try await client.execute(
                uri: "\(serviceURL)/unRegisterReplica?f=json&replicaID=*", method: .get, headers: Self.crossSite(dest: "image")
            ) { _ in }
            #expect(try store.replicas.replica(service: "Demo", id: id) != nil, "an <img> elsewhere unregistered every replica")
            try await client.execute(
                uri: "\(serviceURL)/createReplica?f=json&layers=2&replicaName=img&geometry=13.3,52.4,13.5,52.6&inSR=4326", method: .get,
                headers: Self.crossSite(dest: "image")
            ) { _ in }
            #expect(!(try store.replicas.replicas(service: "Demo")).contains { $0.name == "img" }, "an <img> elsewhere registered a replica")
        }
    }

    /// Was a finding (low, functional): the portal's token service is also served at
    /// `/sharing/rest/generateToken` (no `/arcgis`), which the documentation opens to every
    /// origin; a restricted list refuses it there.
    @Test func thePortalTokenServiceWithoutArcgisIsOpenToEveryOrigin() async throws {
        try await withFreshDemoApp(options: ServerOptions(crossOrigin: Self.restricted)) { client, _ in
            var headers = formHeaders
            headers[.origin] = "https://elsewhere.example"
            for path in ["/arcgis/sharing/rest/generateToken", "/sharing/rest/generateToken"] {
                try await client.execute(
                    uri: path, method: .post, headers: headers, body: form([("f", "json"), ("username", "nobody"), ("password", "x")])
                ) { response in
                    #expect(response.headers[.accessControlAllowOrigin] == "https://elsewhere.example", "\(path)")
                    #expect(json(response)["error"]?["message"] != "Cross-origin request not allowed.", "\(path)")
                }
            }
        }
    }

    /// Was a finding (low): an answer whose CORS headers depend on `Origin` says `Vary: Origin` only
    /// when an `Origin` came. A tile is `Cache-Control: public, max-age=86400`: a shared cache
    /// (or the browser's) that kept the answer to a request without `Origin` hands it, with no
    /// `Access-Control-Allow-Origin`, to a web client for a day. Router and fast path alike.
    @Test func answersWithoutOriginStillSayTheyVaryByOrigin() async throws {
        let store = try makeDemoStore(label: "attack-vary")
        let options = ServerOptions().withLastingTileSets()
        try await buildApplication(store: store, port: 0, options: options).test(.live) { client in
            let uri = "/arcgis/rest/services/DemoBasemap/MapServer/tile/3/2/5"
            for answeredBy in ["router", "fast path"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.cacheControl]?.contains("public") == true)
                    #expect(response.headers[values: .vary].joined(separator: ",").contains("Origin"), "\(answeredBy): no Vary: Origin")
                }
            }
            #expect(options.tileCache.fastAnswers.load(ordering: .relaxed) == 1)
        }
    }

    // MARK: Cross-origin: attacks that held

    /// Spellings of an origin that is not listed are refused; only the equivalent spellings of
    /// a listed one (case, default port, trailing slash) are admitted. Two `Origin` headers
    /// are refused (combined, they are no origin), an allowed one among them included.
    @Test func originSpellingTricksAreRefused() async throws {
        let policy = Self.restricted
        let path = "/arcgis/rest/services/Demo/FeatureServer/2/applyEdits"
        for trick in [
            "https://maps.example.com.", "https://maps.example.com@evil.example", "https://evil.example#@maps.example.com",
            "https://maps.example.com:444", "https://maps.example.com:0443", "http://maps.example.com", "https://maps.example.com.evil.example",
            "https://evil.example/https://maps.example.com", "null", "https://maps.example.com, https://evil.example",
            "https://evil.example, https://maps.example.com", "https://maps\u{2024}example.com", "https://\u{FF4D}aps.example.com",
            "https://" + String(repeating: "a", count: 70_000) + ".example", "file://", "https://maps.example.com\t", "",
        ] {
            #expect(policy.decide(method: .post, origin: trick, host: "outpost.example", path: path) == .refuse(origin: trick), "\(trick.prefix(80))")
        }
        for same in ["HTTPS://MAPS.EXAMPLE.COM", "https://maps.example.com:443", "https://maps.example.com/"] {
            guard case .allow = policy.decide(method: .post, origin: same, host: "outpost.example", path: path) else {
                Issue.record("\(same) refused")
                continue
            }
        }
        // Through the router: two Origin headers, an allowed one first.
        try await withFreshDemoApp(options: ServerOptions(crossOrigin: policy)) { client, _ in
            var headers = formHeaders
            headers.append(HTTPField(name: .origin, value: Self.app))
            headers.append(HTTPField(name: .origin, value: "https://evil.example"))
            let add = form([("f", "json"), ("adds", #"[{"attributes":{},"geometry":{"x":1,"y":2}}]"#)])
            try await client.execute(uri: "\(layerURL)/applyEdits", method: .post, headers: headers, body: add) { response in
                #expect(json(response)["error"]?["code"] == 403)
                #expect(response.headers[.accessControlAllowOrigin] == nil)
            }
        }
    }

    /// A refused origin is refused whatever the method: HEAD, a preflight of an edit, a plain
    /// OPTIONS, an HTML form page; health and metrics routes answer with no CORS headers.
    @Test func aRefusedOriginIsRefusedOnEveryMethodAndRoute() async throws {
        try await withFreshDemoApp(options: ServerOptions(crossOrigin: Self.restricted)) { client, _ in
            let evil = "https://evil.example"
            let requests: [(String, HTTPRequest.Method, HTTPFields)] = [
                ("\(layerURL)/applyEdits", .options, [.origin: evil, .accessControlRequestMethod: "POST"]),
                ("\(layerURL)/applyEdits", .options, [.origin: evil]),
                ("\(layerURL)/query?where=1%3D1&f=json", .head, [.origin: evil]),
                ("\(layerURL)/applyEdits?f=html", .get, [.origin: evil]),
                ("/health/ready", .get, [.origin: evil]),
                ("/metrics", .get, [.origin: evil]),
            ]
            for (uri, method, headers) in requests {
                try await client.execute(uri: uri, method: method, headers: headers) { response in
                    #expect(response.status == .forbidden || json(response)["error"]?["code"] == 403, "\(method) \(uri): \(response.status)")
                    #expect(response.headers[.accessControlAllowOrigin] == nil, "\(method) \(uri)")
                    #expect(response.headers[.accessControlAllowMethods] == nil, "\(method) \(uri)")
                }
            }
        }
    }

    /// A preflight's requested headers are echoed only as header names: CR/LF, colons,
    /// semicolons, non-ASCII and over-long lists are dropped; the origin echoed is the request's.
    @Test func aPreflightEchoesNoInjectedHeader() {
        for hostile in [
            "content-type\r\nSet-Cookie: a=b", "content-type\nx", "x-a:1", "x;a", "x-\u{00e9}", String(repeating: "a,", count: 600),
            "content-type\u{0}", "a\u{2028}b",
        ] {
            guard
                case .preflight(let headers) = CrossOriginPolicy.anyOrigin.decide(
                    method: .options, origin: Self.app, host: "h", path: "/", requestedMethod: "POST", requestedHeaders: hostile)
            else {
                Issue.record("not a preflight")
                continue
            }
            #expect(headers[.accessControlAllowHeaders] == nil, "\(hostile.debugDescription.prefix(60))")
        }
    }

    /// A 304 of a cached tile from the fast path still carries the CORS headers and Vary.
    @Test func aFastPathNotModifiedCarriesTheCrossOriginHeaders() async throws {
        let store = try makeDemoStore(label: "attack-304")
        let options = ServerOptions(crossOrigin: Self.restricted).withLastingTileSets()
        try await buildApplication(store: store, port: 0, options: options).test(.live) { client in
            let uri = "/arcgis/rest/services/DemoBasemap/MapServer/tile/3/2/5"
            let etag = try await client.execute(uri: uri, method: .get, headers: [.origin: Self.app]) { $0.headers[.eTag] }
            for _ in 0..<2 {
                try await client.execute(uri: uri, method: .get, headers: [.origin: Self.app, .ifNoneMatch: try #require(etag)]) { response in
                    #expect(response.status == .notModified)
                    #expect(response.headers[.accessControlAllowOrigin] == Self.app)
                    #expect(response.headers[.vary] == "Origin")
                }
                try await client.execute(uri: uri, method: .get, headers: [.origin: "https://evil.example"]) { response in
                    #expect(response.status == .forbidden || json(response)["error"]?["code"] == 403)
                    #expect(response.headers[.accessControlAllowOrigin] == nil)
                }
            }
            #expect(options.tileCache.fastAnswers.load(ordering: .relaxed) >= 1)
        }
    }

    /// A body over the upload limit, from an allowed origin: the 413 carries the CORS headers
    /// (a web client can read why), though docs/web-clients.md says such an answer has none.
    @Test func aTooLargeBodyFromAnAllowedOriginIsAnsweredWithTheHeaders() async throws {
        try await withFreshDemoApp(
            options: ServerOptions(limits: UploadLimits(maxBodyBytes: 1024, maxFieldBytes: 1024), crossOrigin: Self.restricted)
        ) {
            client, _ in
            var headers = formHeaders
            headers[.origin] = Self.app
            let body = form([("f", "json"), ("adds", String(repeating: "x", count: 4096))])
            try await client.execute(uri: "\(layerURL)/applyEdits", method: .post, headers: headers, body: body) { response in
                #expect(response.status == .contentTooLarge)
                #expect(response.headers[.accessControlAllowOrigin] == Self.app)
            }
        }
    }

    // MARK: Editor tracking: attacks that held

    /// Tracking values under any spelling of the field names are ignored, in adds and in
    /// updates by GlobalID, layer and service `applyEdits`, on both backends.
    @Test(arguments: TrackingBackend.all)
    func trackingFieldsInAnyCaseAreNotForged(_ backend: TrackingBackend) async throws {
        try await TrackingApp.with(backend) { app in
            let city = "{00000000-0000-4000-8000-0000000EA001}"
            let forged = #""CREATOR":"mallory","editor":"mallory","creationdate":1,"EDITDATE":1,"cReAtOr":"mallory""#
            let added = app.later()
            _ = try await app.post(
                "\(TrackingApp.demo)/0/applyEdits",
                [("adds", #"[{"attributes":{"GlobalID":"\#(city)","name":"Forged",\#(forged)},"geometry":{"x":8.5,"y":47.4}}]"#)], as: "eve")
            #expect(try await app.tracking("\(TrackingApp.demo)/0", city) == .made(by: "eve", at: added))
            let updated = app.later()
            let answer = try await app.post(
                "\(TrackingApp.demo)/applyEdits",
                [("useGlobalIds", "true"), ("edits", #"[{"id":0,"updates":[{"attributes":{"GlobalID":"\#(city)","rank":5,\#(forged)}}]}]"#)],
                as: "ed")
            #expect(answer[0]?["updateResults"]?[0]?["success"] == true, "\(answer)")
            #expect(try await app.tracking("\(TrackingApp.demo)/0", city) == Tracking.made(by: "eve", at: added).edited(by: "ed", at: updated))
        }
    }

    /// The user recorded is the user admitted: with a bearer header the body's `token` names
    /// nobody; with a token in the query string, that token decides (it is checked and its
    /// role applies); with security off, an expired token edits as anonymous, not as its user.
    @Test func theRecordedUserIsTheAdmittedOne() async throws {
        try await TrackingApp.with(TrackingBackend.all[0]) { app in
            let city = "{00000000-0000-4000-8000-0000000EA002}"
            _ = try await app.post(
                "\(TrackingApp.demo)/0/addFeatures", [("features", "[\(trackedCity(city, name: "Mixed"))]")], as: "eve")
            func update(_ uri: String, bearer: String, body: [(String, String)]) async throws {
                var headers = formHeaders
                headers[HTTPField.Name("X-Esri-Authorization")!] = "Bearer \(bearer)"
                let fields = [("f", "json"), ("useGlobalIds", "true"), ("updates", #"[{"attributes":{"GlobalID":"\#(city)","rank":6}}]"#)] + body
                try await app.client.execute(uri: uri, method: .post, headers: headers, body: form(fields)) { response in
                    #expect(json(response)["updateResults"]?[0]?["success"] == true, "\(String(buffer: response.body))")
                }
            }
            app.later()
            try await update("\(TrackingApp.demo)/0/applyEdits", bearer: app.tokens["eve"]!, body: [("token", app.tokens["ada"]!)])
            #expect(try await app.tracking("\(TrackingApp.demo)/0", city).editor == "eve")
            app.later()
            try await update("\(TrackingApp.demo)/0/applyEdits?token=\(app.tokens["ed"]!)", bearer: app.tokens["eve"]!, body: [])
            #expect(try await app.tracking("\(TrackingApp.demo)/0", city).editor == "ed")
        }
        try await TrackingApp.with(TrackingBackend.all[0], requireAuth: false) { app in
            let expired = try app.store.users.issueToken(for: ServerUser(name: "eve", role: .editor), minutes: 1).token
            app.later()
            app.later()
            let city = "{00000000-0000-4000-8000-0000000EA003}"
            try await app.client.execute(
                uri: "\(TrackingApp.demo)/0/addFeatures", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("token", expired), ("features", "[\(trackedCity(city, name: "Expired"))]")])
            ) { response in
                #expect(json(response)["addResults"]?[0]?["success"] == true, "\(String(buffer: response.body))")
            }
            #expect(try await app.tracking("\(TrackingApp.demo)/0", city).creator == nil)
        }
    }
}
