import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostServer

/// docs/configuration.md, "HTTPS" and `public-url`: which address the URLs Outpost writes name.
@Suite struct ServerOriginTests {
    @Test func aPublicURLIsSchemeHostAndPortOnly() {
        #expect(ServerOrigin.publicURL("https://GIS.example.org/arcgis") == "https://gis.example.org")
        #expect(ServerOrigin.publicURL("http://gis.example.org:80/") == "http://gis.example.org")
        #expect(ServerOrigin.publicURL("https://gis.example.org:8443") == "https://gis.example.org:8443")
        #expect(ServerOrigin.publicURL("https://[::1]:8443/arcgis/") == "https://[::1]:8443")
        for bad in [
            "gis.example.org", "ftp://gis.example.org", "https://gis.example.org/portal", "https://ada@gis.example.org", "https://", "https://a b",
        ] {
            #expect(ServerOrigin.publicURL(bad) == nil, "\(bad)")
        }
        let origin = ServerOrigin(servedScheme: "http", publicURL: "https://gis.example.org")
        #expect(origin.scheme == "https" && ServerOrigin(servedScheme: "http").scheme == "http")
    }

    @Test func withAPublicURLEveryLinkNamesItAndTheExchangeVouchesForItAlone() async throws {
        let options = ServerOptions(publicURL: "https://gis.example.org")
        try await withFreshDemoApp(options: options) { client, store in
            try store.users.addUser("ada", role: .editor, password: "ada-password", rounds: 1000)
            let token = try store.users.issueToken(for: ServerUser(name: "ada", role: .editor), minutes: 5).token
            try await client.execute(uri: "/arcgis/rest/info?f=json", method: .get) { response in
                #expect(json(response)["owningSystemUrl"] == "https://gis.example.org/arcgis")
                #expect(response.headers[.cacheControl] == nil, "fixed links may be cached")
            }
            try await client.execute(uri: "/arcgis/sharing/rest/portals/self?f=json", method: .get) { response in
                #expect(json(response)["portalHostname"] == "gis.example.org" && json(response)["allSSL"] == true)
            }
            for (server, vouched) in [
                ("https://gis.example.org/arcgis", true), ("http://gis.example.org/arcgis", false), ("http://localhost", false),
            ] {
                let body = form([("f", "json"), ("token", token), ("serverUrl", server)])
                try await client.execute(uri: "/arcgis/sharing/rest/generateToken", method: .post, headers: formHeaders, body: body) { response in
                    #expect((json(response)["token"]?.stringValue == token) == vouched, "\(server): \(json(response))")
                    if vouched { #expect(json(response)["ssl"] == true) }
                }
            }
        }
    }

    @Test func withoutOneAnswersThatMayNameTheHostAreNotStored() async throws {
        try await withFreshDemoApp { client, _ in
            for uri in ["/arcgis/rest/info?f=json", "/arcgis/sharing/rest/portals/self?f=json", "/arcgis/rest/services?f=pjson"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.headers[.cacheControl] == "no-store", "\(uri)")
                }
            }
            // A tile keeps its own caching: it names no host.
            try await client.execute(uri: "/arcgis/rest/services/DemoBasemap/MapServer/tile/3/2/5", method: .get) { response in
                #expect(response.headers[.cacheControl] == "public, max-age=86400")
            }
        }
    }
}
