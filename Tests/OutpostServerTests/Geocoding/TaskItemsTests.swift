import Foundation
import HummingbirdTesting
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Locators and networks as the portal's items (docs/portal.md, "Service items"): a
/// `Geocoding Service` and a `Network Analysis Service` item each, found by type, opened by
/// id, shared with the organisation under token security, deleted by an administrator only.
@Suite struct TaskItemsTests {
    static func found(_ client: any TestClientProtocol, type: String, token: String?) async throws -> [JSONValue] {
        let suffix = token.map { "&token=\($0)" } ?? ""
        let query = FormURLEncoding.percentEncode("type:\"\(type)\"")
        return try await get(client, "\(portalURL)/search?f=json&num=100&q=\(query)\(suffix)")["results"]?.arrayValue ?? []
    }

    @Test func locatorsAndNetworksAreItemsThatOnlyAnAdministratorDeletes() async throws {
        try await PortalRoutesTests.withSecuredPortal { client, store, tokens in
            let network = try StreetGrid.make(store)
            let (root, vic) = (tokens["root"]!, tokens["vic"]!)

            let geocoders = try await Self.found(client, type: "Geocoding Service", token: vic)
            let places = try #require(geocoders.first { $0["title"] == "DemoPlaces" }, "\(geocoders)")
            #expect(places["url"]?.stringValue?.hasSuffix("/arcgis/rest/services/DemoPlaces/GeocodeServer") == true, "\(places)")
            #expect(places["owner"] == "outpost" && places["access"] == "org", "\(places)")
            let routes = try await Self.found(client, type: "Network Analysis Service", token: vic)
            let streets = try #require(routes.first, "\(routes)")
            #expect(routes.count == 1 && streets["title"] == "StreetRoutes", "\(routes)")
            #expect(streets["url"]?.stringValue?.hasSuffix("/arcgis/rest/services/StreetRoutes/NAServer") == true, "\(streets)")
            #expect(streets["created"]?.doubleValue == Double(network.builtAt), "\(streets)")
            #expect(try await Self.found(client, type: "Network Analysis Service", token: nil).isEmpty, "the organisation's, not the public's")

            let placesId = try #require(places["id"]?.stringValue)
            let streetsId = try #require(streets["id"]?.stringValue)
            let opened = try await get(client, "\(portalURL)/content/items/\(streetsId)?f=json&token=\(vic)")
            #expect(opened["type"] == "Network Analysis Service" && opened["id"]?.stringValue == streetsId, "\(opened)")

            // A viewer may see them, not delete them: nothing changes.
            let refused = try await post(client, "\(portalURL)/content/users/outpost/items/\(streetsId)/delete", [("f", "json"), ("token", vic)])
            #expect(refused["error"]?["code"] == 403, "\(refused)")
            #expect(try store.networks.network(named: "StreetRoutes") != nil)

            // An administrator's deletion removes the network and the locator themselves.
            for id in [streetsId, placesId] {
                let deleted = try await post(client, "\(portalURL)/content/users/outpost/items/\(id)/delete", [("f", "json"), ("token", root)])
                #expect(deleted["success"] == true, "\(deleted)")
                let gone = try await get(client, "\(portalURL)/content/items/\(id)?f=json&token=\(root)")
                #expect(gone["error"]?["code"] == 400, "\(gone)")
            }
            #expect(try store.networks.network(named: "StreetRoutes") == nil && store.locators.locator(named: "DemoPlaces") == nil)
            #expect(try await Self.found(client, type: "Geocoding Service", token: root).isEmpty)
        }
    }
}
