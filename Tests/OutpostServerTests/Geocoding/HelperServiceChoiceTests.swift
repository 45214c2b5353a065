import Foundation
import HummingbirdTesting
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The organisation's utility services (docs/portal.md, "Utility services"): the rules of
/// `portals/self/update`'s `geocodeService` and `routeServiceLayer` as a table, then over HTTP.
@Suite struct HelperServiceChoiceTests {
    static let locators = ["Addresses", "DemoPlaces"]
    static let networks = ["Alpha", "StreetRoutes"]
    static let server = "https://maps.example.org/arcgis/rest/services"

    /// Each row: the parameters, then the choice they make from the default, or nil when refused.
    static let rules: [(pairs: [(String, String)], expected: HelperServiceChoice?)] = [
        ([], HelperServiceChoice()),
        ([("geocodeService", "")], HelperServiceChoice()),
        ([("geocodeService", #"[{"url":"\#(server)/demoplaces/GeocodeServer"}]"#)], HelperServiceChoice(geocode: ["DemoPlaces"])),
        (
            [("geocodeService", #"[{"url":"\#(server)/DemoPlaces/GeocodeServer"},{"url":"/arcgis/rest/services/Addresses/GeocodeServer/"}]"#)],
            HelperServiceChoice(geocode: ["DemoPlaces", "Addresses"])
        ),
        (
            [("geocodeService", #"[{"url":"\#(server)/DemoPlaces/GeocodeServer"},{"url":"\#(server)/DemoPlaces/GeocodeServer"}]"#)],
            HelperServiceChoice(geocode: ["DemoPlaces"])
        ),
        ([("geocodeService", "[]")], HelperServiceChoice(geocode: [])),
        ([("geocodeService", "null")], HelperServiceChoice()),
        ([("routeServiceLayer", #"{"url":"\#(server)/StreetRoutes/NAServer/Route"}"#)], HelperServiceChoice(route: ["StreetRoutes"])),
        ([("routeServiceLayer", #"{"url":"\#(server)/StreetRoutes/NAServer"}"#)], HelperServiceChoice(route: ["StreetRoutes"])),
        ([("routeServiceLayer", "{}")], HelperServiceChoice(route: [])),
        ([("routeServiceLayer", #"{"url":""}"#)], HelperServiceChoice(route: [])),
        ([("geocodeService", #"[{"url":"\#(server)/Nowhere/GeocodeServer"}]"#)], nil),
        ([("geocodeService", #"[{"url":"\#(server)/StreetRoutes/NAServer/Route"}]"#)], nil),
        ([("geocodeService", #"[{"name":"DemoPlaces"}]"#)], nil),
        ([("geocodeService", #"{"url":"\#(server)/DemoPlaces/GeocodeServer"}"#)], nil),
        ([("geocodeService", "[{")], nil),
        (
            [("geocodeService", "[" + Array(repeating: #"{"url":"\#(server)/DemoPlaces/GeocodeServer"}"#, count: 17).joined(separator: ",") + "]")],
            nil
        ),
        ([("routeServiceLayer", #"{"url":"\#(server)/Alpha/GeocodeServer"}"#)], nil),
        ([("routeServiceLayer", #"{"url":"https://elsewhere.example/services/Alpha/NAServer/Route"}"#)], nil),
        ([("routeServiceLayer", "[]")], nil),
        ([("routeServiceLayer", #"{"foo":1}"#)], nil),
        ([("routeServiceLayer", #"{"url":"javascript:alert(1)//arcgis/rest/services/Alpha/NAServer/Route"}"#)], nil),
        ([("routeServiceLayer", #"{"url":"\#(server)/Alpha/NAServer/Route?x=1"}"#)], nil),
        ([("routeServiceLayer", #"{"url":"\#(server)/Alpha/NAServer/Route#top"}"#)], nil),
        ([("geocodeService", #"[{"url":"\#(server)/Demo%50laces/GeocodeServer"}]"#)], nil),
        ([("geocodeService", "[]" + String(repeating: " ", count: HelperServiceChoice.maximumParameterBytes))], nil),
        ([("routeServiceLayer", "\"" + String(repeating: "a", count: HelperServiceChoice.maximumParameterBytes) + "\"")], nil),
    ]

    @Test func theRulesOfAChoice() throws {
        for (pairs, expected) in Self.rules {
            let made = try? HelperServiceChoice().updated(by: RequestParameters(pairs), locators: Self.locators, networks: Self.networks)
            #expect(made == expected, "\(pairs)")
        }
        // What is left alone stays; a chosen name no longer there is left out; the default lists all.
        let chosen = HelperServiceChoice(geocode: ["Gone", "DemoPlaces"], route: ["StreetRoutes"])
        #expect(
            try chosen.updated(by: RequestParameters([("routeServiceLayer", "null")]), locators: Self.locators, networks: Self.networks)
                == HelperServiceChoice(geocode: ["Gone", "DemoPlaces"]))
        #expect(chosen.geocoders(of: Self.locators) == ["DemoPlaces"] && chosen.routeNetwork(of: Self.networks) == "StreetRoutes")
        #expect(
            HelperServiceChoice().geocoders(of: Self.locators) == Self.locators && HelperServiceChoice().routeNetwork(of: Self.networks) == "Alpha")
        #expect(HelperServiceChoice(route: []).routeNetwork(of: Self.networks) == nil)
    }

    @Test func anAdministratorChoosesTheOrganisationsGeocodersAndRouteService() async throws {
        try await PortalRoutesTests.withSecuredPortal { client, store, tokens in
            _ = try StreetGrid.make(store)
            _ = try StreetGrid.make(store, service: "Lanes", network: "Alpha")
            let (root, vic) = (tokens["root"]!, tokens["vic"]!)
            func helpers() async throws -> (geocode: [String], route: String?) {
                let portal = try await get(client, "\(portalURL)/portals/self?f=json&token=\(vic)")
                let geocode = portal["helperServices"]?["geocode"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
                return (geocode, portal["helperServices"]?["route"]?["url"]?.stringValue)
            }
            func update(_ pairs: [(String, String)], as token: String) async throws -> JSONValue {
                try await post(client, "\(portalURL)/portals/self/update", [("f", "json"), ("token", token)] + pairs)
            }
            // An anonymous caller under token security is told no names.
            let anonymous = try await get(client, "\(portalURL)/portals/self?f=json")
            #expect(anonymous["helperServices"]?["geocode"] == [] && anonymous["helperServices"]?["route"] == nil, "\(anonymous)")
            let elsewhere = try await post(client, "\(portalURL)/portals/zzz/update", [("f", "json"), ("token", root), ("routeServiceLayer", "{}")])
            #expect(elsewhere["error"]?["code"] == 404, "\(elsewhere)")
            var before = try await helpers()
            #expect(before.geocode == ["DemoPlaces"] && before.route?.hasSuffix("/rest/services/Alpha/NAServer/Route") == true, "\(before)")

            let route = #"{"url":"https://any.host/arcgis/rest/services/StreetRoutes/NAServer/Route"}"#
            let refused = try await update([("routeServiceLayer", route)], as: vic)
            #expect(refused["error"]?["code"] == 403, "\(refused)")
            for bad in [
                [("routeServiceLayer", #"{"url":"https://any.host/arcgis/rest/services/Nowhere/NAServer/Route"}"#)],
                [("routeServiceLayer", route), ("defaultBasemap", #"{"title":"x"}"#)],
            ] {
                let answer = try await update(bad, as: root)
                #expect(answer["error"]?["code"] == 400, "\(answer)")
            }
            before = try await helpers()
            #expect(before.route?.hasSuffix("/Alpha/NAServer/Route") == true, "refused changes change nothing")

            let done = try await update([("routeServiceLayer", route), ("geocodeService", "[]"), ("defaultBasemap", "")], as: root)
            #expect(done["success"] == true, "\(done)")
            var after = try await helpers()
            #expect(after.geocode == [] && after.route?.hasSuffix("/rest/services/StreetRoutes/NAServer/Route") == true, "\(after)")
            _ = try await update([("geocodeService", "null"), ("routeServiceLayer", "null")], as: root)
            after = try await helpers()
            #expect(after.geocode == ["DemoPlaces"] && after.route?.hasSuffix("/Alpha/NAServer/Route") == true, "the defaults again: \(after)")
            #expect(try store.maintenance.setting(.helperServices) == nil, "the default keeps nothing")
        }
    }
}
