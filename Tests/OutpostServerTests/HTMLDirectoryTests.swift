import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The services directory in HTML: what a browser gets, rendered from the JSON answers.
/// (The real-browser test is Tests/interop/test_browser.py.)
@Suite struct HTMLDirectoryTests {
    @Test func browsersGetHTMLAndClientsKeepJSON() async throws {
        try await withFreshDemoApp { client, _ in
            try await client.execute(uri: "/arcgis/rest/services", method: .get, headers: [.accept: "text/html,application/xhtml+xml"]) { response in
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(
                    String(buffer: response.body).contains(#"<a href="/arcgis/rest/services/Demo/FeatureServer?f=html">Demo (FeatureServer)</a>"#))
            }
            try await client.execute(uri: "/arcgis/rest/services", method: .get, headers: [.accept: "*/*"]) { response in
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            }
            // f wins over Accept.
            try await client.execute(uri: "/arcgis/rest/services?f=json", method: .get, headers: [.accept: "text/html"]) { response in
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            }
        }
    }

    @Test func itemsWebMapsAndTileServicesAreLinkedPages() async throws {
        try await withFreshDemoApp { client, _ in
            func page(_ uri: String) async throws -> String { try await client.execute(uri: uri, method: .get) { String(buffer: $0.body) } }
            let search = try await page("/arcgis/sharing/rest/search?q=title%3A%22Demo%20map%22&f=html")
            #expect(
                search.contains(#"<a href="/arcgis/sharing/rest/content/items/de3000000000000000000000000000a1?f=html">"#),
                "search results link items")
            let data = try await page("/arcgis/sharing/rest/content/items/de3000000000000000000000000000a1/data?f=html")
            #expect(data.contains(#"/arcgis/rest/services/Demo/FeatureServer/0</a>"#), "a web map's layers are links")
            let services = try await page("/arcgis/rest/services?f=html")
            #expect(services.contains(#"href="/arcgis/rest/services/DemoBasemap/MapServer?f=html">DemoBasemap (MapServer)</a>"#))
            let tiles = try await page("/arcgis/rest/services/DemoVectorBasemap/VectorTileServer?f=html")
            #expect(tiles.contains(#"href="/arcgis/rest/services/DemoVectorBasemap/VectorTileServer?f=jsapi">Map preview</a>"#))
        }
    }

    @Test func anOperationWithoutParametersIsItsFormAndChangesNothing() async throws {
        try await withFreshDemoApp { client, store in
            let generation = try store.edits.currentGeneration()
            for operation in ["2/query", "2/applyEdits", "applyEdits", "createReplica", "synchronizeReplica", "unRegisterReplica"] {
                try await client.execute(uri: "\(serviceURL)/\(operation)?f=html", method: .get) { response in
                    let page = String(buffer: response.body)
                    let name = operation.split(separator: "/").last.map(String.init) ?? operation
                    #expect(page.contains(#"<form method=""#) && page.contains(#"id="\#(name)-form""#), "\(operation)")
                    #expect(!page.contains("<h2>Result</h2>"), "\(operation)")
                }
            }
            #expect(try store.replicas.replicas(service: "Demo").isEmpty)
            #expect(try store.edits.currentGeneration() == generation)
        }
    }

    /// A locator's and a network's operations have their small forms too; filled in, the form
    /// runs the operation and shows its answer below it.
    @Test func geocodingAndRoutingHaveTheirForms() async throws {
        try await withFreshDemoApp { client, store in
            _ = try StreetGrid.make(store)
            for operation in [
                "DemoPlaces/GeocodeServer/findAddressCandidates", "DemoPlaces/GeocodeServer/suggest", "DemoPlaces/GeocodeServer/reverseGeocode",
                "StreetRoutes/NAServer/Route/solve",
            ] {
                try await client.execute(uri: "/arcgis/rest/services/\(operation)?f=html", method: .get) { response in
                    let page = String(buffer: response.body)
                    let name = operation.split(separator: "/").last.map(String.init) ?? operation
                    #expect(page.contains(#"id="\#(name)-form""#) && !page.contains("<h2>Result</h2>"), "\(operation)")
                }
            }
            let asked = "/arcgis/rest/services/DemoPlaces/GeocodeServer/findAddressCandidates?f=html&SingleLine=Berlin"
            try await client.execute(uri: asked, method: .get) { response in
                let page = String(buffer: response.body)
                #expect(page.contains(#"id="findAddressCandidates-form""#) && page.contains("<h2>Result</h2>") && page.contains("Berlin"))
            }
        }
    }

    /// Control characters are no text of a page (a stop's name, a feature's value): each is
    /// U+FFFD; tabs and line ends stay.
    @Test func controlCharactersBecomeReplacementCharacters() {
        #expect(HTMLDirectory.escape("a\u{1B}[31mb\u{0}c\u{7F}d\u{85}") == "a\u{FFFD}[31mb\u{FFFD}c\u{FFFD}d\u{FFFD}")
        #expect(HTMLDirectory.escape("one\ttwo\r\nthree\n") == "one\ttwo\r\nthree\n")
    }

    /// Data is text on the page, never markup: a feature named like a script is escaped.
    @Test func featureValuesAreEscaped() async throws {
        try await withFreshDemoApp { client, _ in
            let hostile = #"<script>alert('x')</script>"#
            let adds = #"[{"attributes":{"species":"\#(hostile)"},"geometry":{"x":13.4,"y":52.5}}]"#
            _ = try await post(client, "\(serviceURL)/2/applyEdits", [("f", "json"), ("adds", adds)])
            try await client.execute(uri: "\(serviceURL)/2/query?f=html&where=species%20LIKE%20%27%3Cscript%25%27&outFields=species", method: .get) {
                response in
                let page = String(buffer: response.body)
                #expect(!page.contains("<script>"))
                #expect(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
                #expect(page.contains("<h2>Features (1)</h2>"))
            }
            // An error is a page too, with the envelope's message.
            try await client.execute(uri: "\(serviceURL)/2/query?f=html&where=nope%20%3D%201", method: .get) { response in
                #expect(String(buffer: response.body).contains(#"<p class="error" id="error">Error 400"#))
            }
        }
    }

    /// Issue 43: an item's data page turned a `javascript:` URL into a link. Only web
    /// addresses become links, under any of the keys the directory links.
    @Test func onlyWebAddressesBecomeLinks() async throws {
        try await withFreshDemoApp { client, _ in
            let data =
                #"{"URL":"javascript:alert(1)","resultUrl":"JavaScript:alert(2)","statusUrl":"data:text/html,x","url":"javascript:alert(3)","responseUrl":"https://example.org/x"}"#
            let added = try await post(
                client, "/arcgis/sharing/rest/content/users/admin/addItem", [("f", "json"), ("type", "Code Sample"), ("title", "x"), ("text", data)])
            let id = try #require(added["id"]?.stringValue, "\(added)")
            try await client.execute(uri: "/arcgis/sharing/rest/content/items/\(id)/data?f=html", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("javascript:alert(1)"), "shown as text: \(page)")
                #expect(!page.lowercased().contains("href=\"javascript:") && !page.contains("href=\"data:"), "\(page)")
                #expect(page.contains(#"href="https://example.org/x""#))
            }
        }
    }
}
