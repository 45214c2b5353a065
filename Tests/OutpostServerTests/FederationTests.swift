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

/// The server federated with the portal (docs/portal.md, "Federation"): `rest/info` names the
/// portal as its owning system and the portal's token service; the portal's `generateToken`
/// answers a server token for a portal token (`token` + `serverUrl`) only for this server.
@Suite struct FederationTests {
    @Test func restInfoNamesThePortalAsItsOwningSystem() async throws {
        try await PortalRoutesTests.withSecuredPortal { client, _, _ in
            let info = try await get(client, "/arcgis/rest/info?f=json")
            #expect(info["owningSystemUrl"] == "http://localhost/arcgis", "\(info)")
            #expect(info["authInfo"]?["isTokenBasedSecurity"] == true)
            #expect(info["authInfo"]?["tokenServicesUrl"] == "http://localhost/arcgis/sharing/rest/generateToken", "\(info)")
            // The portal's own info names the same system and token service.
            let portal = try await get(client, "\(portalURL)/info?f=json")
            #expect(
                portal["owningSystemUrl"] == info["owningSystemUrl"]
                    && portal["authInfo"]?["tokenServicesUrl"] == info["authInfo"]?["tokenServicesUrl"])
        }
        // Without token security the server is still the portal's (ArcGIS REST JS asks for a
        // token for every server its session is used with), and needs no token.
        try await withDemoApp { client in
            let info = try await get(client, "/arcgis/rest/info?f=json")
            #expect(info["owningSystemUrl"] == "http://localhost/arcgis" && info["authInfo"] == ["isTokenBasedSecurity": false], "\(info)")
        }
    }

    @Test func aPortalTokenIsExchangedForItselfForThisServerOnly() async throws {
        try await PortalRoutesTests.withSecuredPortal { client, store, _ in
            let signed = try await post(
                client, "\(portalURL)/generateToken", [("f", "json"), ("username", "ada"), ("password", "ada-password"), ("expiration", "30")])
            let token = try #require(signed["token"]?.stringValue, "\(signed)")
            let query = "/arcgis/rest/services/Demo/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json"
            // ArcGIS REST JS (token, serverUrl, expiration) at every token service; the ArcGIS API
            // for Python's request=getToken with serverURL, spelt its way.
            let forms: [[(String, String)]] = [
                [("token", token), ("serverUrl", "http://localhost/arcgis"), ("expiration", "20160")],
                [("request", "getToken"), ("serverURL", "HTTP://LocalHost:80/arcgis"), ("token", token), ("referer", "http")],
                [("token", token), ("serverUrl", "http://localhost"), ("username", ""), ("password", "")],
            ]
            for tokenService in ["\(portalURL)/generateToken", "/sharing/rest/generateToken", "/arcgis/tokens/generateToken"] {
                for form in forms {
                    let exchanged = try await post(client, tokenService, [("f", "json")] + form)
                    #expect(
                        exchanged["token"]?.stringValue == token && exchanged["expires"] == signed["expires"], "\(tokenService) \(form): \(exchanged)"
                    )
                }
            }
            #expect(try await get(client, "\(query)&token=\(token)")["count"] == 243)

            // Another server, or no server at all, gets nothing.
            for other in [
                "https://elsewhere.example/arcgis", "http://localhost.example/arcgis", "http://localhost:8080/arcgis", "http://eve@localhost/arcgis",
                "localhost/arcgis", "ftp://localhost/arcgis", "http://",
            ] {
                let refused = try await post(client, "\(portalURL)/generateToken", [("f", "json"), ("token", token), ("serverUrl", other)])
                #expect(refused["token"] == nil && refused["error"]?["code"] == 400, "\(other): \(refused)")
                #expect(refused["error"]?["details"]?[0]?.stringValue?.contains("Unable to generate token for this server") == true, "\(refused)")
            }
            // A token that is not one, or no longer one, whatever the server.
            let expired = try store.users.issueToken(for: ServerUser(name: "ada", role: .editor), minutes: 0).token
            for bad in [expired, String(repeating: "0", count: 64)] {
                let refused = try await post(
                    client, "\(portalURL)/generateToken", [("f", "json"), ("token", bad), ("serverUrl", "http://localhost/arcgis")])
                #expect(refused["error"]?["code"] == 498 && refused["token"] == nil, "\(refused)")
            }
        }
    }

    /// Scheme, host and effective port: a default port is the scheme's own, not either one.
    @Test func serverURLsAreComparedBySchemeHostAndPort() {
        #expect(ServerAddress(url: "HTTPS://Host.Example:443/arcgis/rest/services") == ServerAddress(scheme: "https", authority: "host.example"))
        #expect(ServerAddress(url: "http://[::1]:8080") == ServerAddress(scheme: "http", authority: "[::1]:8080"))
        #expect(ServerAddress(scheme: "http", authority: "Host:80") == ServerAddress(url: "http://host/"))
        #expect(ServerAddress(scheme: "HTTP", authority: "host")?.port == 80)
        // Another port or scheme on the same host is another server.
        #expect(ServerAddress(url: "http://host:443") != ServerAddress(scheme: "http", authority: "host"))
        #expect(ServerAddress(url: "https://host:80") != ServerAddress(scheme: "http", authority: "host"))
        #expect(ServerAddress(url: "http://host") != ServerAddress(scheme: "https", authority: "host"))
        #expect(ServerAddress(url: "https://host") != ServerAddress(scheme: "https", authority: "host:8443"))
        // Written another way: no address at all.
        for odd in [
            "http://host:0080", "http://host:", "http://host:65536", "http://a@host", "http://ho%73t", "http://[::1", "ftp://host", "http://",
        ] {
            #expect(ServerAddress(url: odd) == nil, "\(odd)")
        }
        #expect(ServerAddress(scheme: "http", authority: "host:080") == nil && ServerAddress(scheme: "ws", authority: "host") == nil)
    }

    /// A request without a `Host` (HTTP/1.0) names no server: the exchange fails closed.
    @Test func withoutAHostNothingIsVouchedFor() throws {
        let store = try makeDemoStore(label: "federation-no-host")
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        try store.users.addUser("ada", role: .editor, password: "ada-password", rounds: 1000)
        let token = try store.users.issueToken(for: ServerUser(name: "ada", role: .editor), minutes: 5).token
        let authenticator = Authenticator(store: store, required: true, defaultMinutes: 60, maximumMinutes: 60)
        let form = RequestParameters([("f", "json"), ("token", token)])
        for server in ["http://127.0.0.1/arcgis", "http://localhost/arcgis"] {
            #expect(throws: ArcGISError.self) { try authenticator.serverToken(form, token: token, serverURL: server, this: nil, scheme: "http") }
        }
        #expect(throws: Never.self) {
            try authenticator.serverToken(
                form, token: token, serverURL: "http://localhost", this: ServerAddress(scheme: "http", authority: "localhost"), scheme: "http")
        }
    }

    /// Served over TLS, the exchange vouches for `https://` only, and every token service
    /// answers `ssl: true` (ArcGIS's "the token must always be passed back via HTTPS", as
    /// `portals/self.allSSL` says); over plain HTTP, `ssl: false`.
    @Test func theExchangeComparesTheSchemeTheServerServes() async throws {
        for scheme in ["http", "https"] {
            let store = try makeDemoStore(label: "federation-\(scheme)")
            defer { try? FileManager.default.removeItem(atPath: store.directory) }
            try store.users.addUser("ada", role: .editor, password: "ada-password", rounds: 1000)
            let app = Application(router: buildRouter(store: store, options: ServerOptions(scheme: scheme, requireAuth: true)))
            try await app.test(.router) { client in
                let signed = try await post(client, "\(portalURL)/generateToken", [("f", "json"), ("username", "ada"), ("password", "ada-password")])
                let token = try #require(signed["token"]?.stringValue, "\(signed)")
                #expect(signed["ssl"] == .bool(scheme == "https"), "\(signed)")
                #expect(try await get(client, "\(portalURL)/portals/self?f=json")["allSSL"] == signed["ssl"])
                let other = scheme == "https" ? "http" : "https"
                for (serverURL, vouched) in [("\(scheme)://localhost/arcgis", true), ("\(other)://localhost/arcgis", false)] {
                    for service in ["\(portalURL)/generateToken", "/sharing/rest/generateToken", "/arcgis/tokens/generateToken"] {
                        let answer = try await post(client, service, [("f", "json"), ("token", token), ("serverUrl", serverURL)])
                        #expect((answer["token"]?.stringValue == token) == vouched, "\(service) \(serverURL): \(answer)")
                        #expect(!vouched || answer["ssl"] == .bool(scheme == "https"), "\(answer)")
                    }
                }
            }
        }
    }
}
