import Hummingbird
import HummingbirdTesting
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The demo's locator over HTTP (docs/geocoding.md, "Service"): ArcGIS's JSON, its errors,
/// and a locator reached through its folder.
@Suite struct GeocodeRoutesTests {
    static let locator = "/arcgis/rest/services/DemoPlaces/GeocodeServer"

    @Test func theDemoLocatorAnswersAsAGeocodeServer() async throws {
        try await withFreshDemoApp { client, store in
            let info = try await get(client, "\(Self.locator)?f=json")
            #expect(info["singleLineAddressField"]?["name"] == "SingleLine" && info["capabilities"] == "Geocode,ReverseGeocode,Suggest")
            let found = try await get(client, "\(Self.locator)/findAddressCandidates?f=json&SingleLine=Berlin&outFields=Addr_type,Score")
            let best = found["candidates"]?[0]
            #expect(best?["address"] == "Berlin" && best?["attributes"]?["Addr_type"] == "POI", "\(found)")
            #expect(best?["attributes"]?.objectValue?.keys.sorted() == ["Addr_type", "Score"], "only the fields asked")
            let x = try #require(best?["location"]?["x"]?.doubleValue)
            let y = try #require(best?["location"]?["y"]?.doubleValue)
            let reversed = try await get(client, "\(Self.locator)/reverseGeocode?f=json&location=\(x + 0.0001),\(y)")
            #expect(reversed["address"]?["Match_addr"] == "Berlin" && reversed["address"]?["Addr_type"] == "POI", "\(reversed)")

            // The portal names its locators, the clients' default geocoders.
            let portal = try await get(client, "/arcgis/sharing/rest/portals/self?f=json")
            let geocoders = portal["helperServices"]?["geocode"]?.arrayValue ?? []
            #expect(geocoders.count == 1 && geocoders[0]["url"]?.stringValue?.hasSuffix("/rest/services/DemoPlaces/GeocodeServer") == true)

            // Errors: ArcGIS's JSON, nothing answered.
            let unknown = try await get(client, "/arcgis/rest/services/Nowhere/GeocodeServer/findAddressCandidates?f=json&SingleLine=x")
            #expect(unknown["error"]?["code"] == 404)
            let noAddress = try await get(client, "\(Self.locator)/findAddressCandidates?f=json")
            #expect(noAddress["error"]?["code"] == 400)
            let badKey = try await get(client, "\(Self.locator)/findAddressCandidates?f=json&SingleLine=x&magicKey=not-a-key")
            #expect(badKey["error"]?["code"] == 400)
            let keyOnly = try await get(client, "\(Self.locator)/findAddressCandidates?f=json&magicKey=b2cxfHBsfDE5OA")
            #expect(keyOnly["error"]?["code"] == 400, "a key goes with its suggestion's text")
            for (records, valid) in [
                (#"[{"attributes":{"OBJECTID":"7","SingleLine":"Paris"}},{"attributes":{"SingleLine":12345}}]"#, true),
                (#"[{"attributes":{"OBJECTID":1,"SingleLine":"Paris"}},{"attributes":{"OBJECTID":1,"SingleLine":"Rome"}}]"#, false),
                (#"[{"attributes":{"OBJECTID":7.5,"SingleLine":"Paris"}}]"#, false),
            ] {
                let body = form([("f", "json"), ("addresses", #"{"records":\#(records)}"#)])
                try await client.execute(
                    uri: "\(Self.locator)/geocodeAddresses", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: body
                ) { response in
                    let answer = json(response)
                    if valid {
                        #expect(answer["locations"]?.arrayValue?.map { $0["attributes"]?["ResultID"] } == [7, 1], "\(answer)")
                    } else {
                        #expect(answer["error"]?["code"] == 400, "ids that are no integers or are shared: \(answer)")
                    }
                }
            }
            let records = (0...GeocodeRequest.maximumBatchSize).map { #"{"attributes":{"OBJECTID":\#($0),"SingleLine":"Berlin"}}"# }
            try await client.execute(
                uri: "\(Self.locator)/geocodeAddresses", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: form([("f", "json"), ("addresses", #"{"records":[\#(records.joined(separator: ","))]}"#)])
            ) { response in
                #expect(json(response)["error"]?["code"] == 400, "more records than MaxBatchSize")
            }

            // A locator in a folder answers by its folder path, and the folder lists it.
            try LocatorBuilder.build(
                LocatorDefinition(name: "Field/Places", service: "Demo", layer: 0, kind: .place, fields: .init(placeName: "name")), in: store)
            let inFolder = try await get(client, "/arcgis/rest/services/Field/Places/GeocodeServer/suggest?f=json&text=Pari")
            #expect(inFolder["suggestions"]?[0]?["text"] == "Paris", "\(inFolder)")
            let folder = try await get(client, "/arcgis/rest/services/Field?f=json")
            #expect(folder["services"]?.arrayValue?.contains(["name": "Field/Places", "type": "GeocodeServer"]) == true, "\(folder)")
        }
    }

    @Test func batchesBeyondTheGatesLimitAreAnswered429() throws {
        let gate = BusyGate(limit: 1, busyMessage: "busy")
        let refusal = try gate.run { () -> Int in
            do { return try gate.run { 0 } } catch let error as ArcGISError { return error.code } catch { return -1 }
        }
        #expect(refusal == 429)
        #expect(try gate.run { 1 } == 1, "free again once the batch ended")
    }
}
