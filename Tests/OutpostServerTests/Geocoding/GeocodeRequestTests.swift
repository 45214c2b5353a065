import OutpostGeocoding
import OutpostService
import OutpostWire
import Testing

/// A `GeocodeServer` request's bounds, checked before any work (docs/geocoding.md, "Service").
@Suite struct GeocodeRequestTests {
    @Test(arguments: [
        ("outSR", "2193"), ("outSR", "{\"wkid\":27700}"), ("maxLocations", "0"), ("maxLocations", "51"), ("minScore", "101"),
        ("minScore", "nan"), ("location", "nan,1"), ("location", "200,1"), ("location", "1"), ("location", "{\"x\":1}"),
        ("location", "{\"x\":1,\"y\":2,\"spatialReference\":{\"wkid\":2193}}"), ("searchExtent", "1,2,3"), ("searchExtent", "1,2,3,inf"),
        ("searchExtent", "{\"xmin\":1}"),
    ])
    func aParameterOutOfBoundsIsRefused(_ name: String, _ value: String) {
        #expect(throws: ArcGISError.self) { try GeocodeRequest.parse(RequestParameters([(name, value), ("distance", "10")])) }
    }

    @Test(arguments: ["-1", "nan", "1e9", "inf"])
    func aDistanceOutOfBoundsIsRefused(_ value: String) {
        #expect(throws: ArcGISError.self) { try GeocodeRequest.parse(RequestParameters([("location", "13,52"), ("distance", value)])) }
    }

    @Test func pointsAndExtentsBecomeIndexCoordinates() throws {
        let request = try GeocodeRequest.parse(
            RequestParameters([
                ("location", #"{"x":1492000,"y":6894000,"spatialReference":{"wkid":102100}}"#), ("distance", "1000"),
                ("searchExtent", "13,52,14,53"), ("outSR", "3857"), ("maxLocations", "3"),
            ]))
        #expect(request.bias?.location == PlanarPoint(x: 1_492_000, y: 6_894_000))
        #expect(request.outSR == .webMercator(wkid: 3857) && request.maxLocations == 3)
        let distance = try #require(request.bias?.distance)
        #expect(distance > 1_600 && distance < 1_700, "1 km at latitude 52 is about 1.63 km of Web Mercator")
        let extent = try #require(request.extent)
        #expect(extent.contains(WebMercator.point(longitude: 13.5, latitude: 52.5)))
        #expect(!extent.contains(WebMercator.point(longitude: 12.5, latitude: 52.5)))
    }

    @Test func webMercatorRoundTrips() {
        for (longitude, latitude) in [(0.0, 0.0), (13.4, 52.52), (-122.4, 37.8), (179.9, -60.0)] {
            let back = WebMercator.coordinates(of: WebMercator.point(longitude: longitude, latitude: latitude))
            #expect(abs(back.longitude - longitude) < 1e-9 && abs(back.latitude - latitude) < 1e-9)
        }
        #expect(WebMercator.point(longitude: 180, latitude: 0).x == 20_037_508.342789244)
    }
}
