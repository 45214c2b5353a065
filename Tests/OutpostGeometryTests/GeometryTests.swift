import OutpostWire
import Testing

@testable import OutpostGeometry

@Suite struct GeometryCodecTests {
    static let square = [Point(x: 0, y: 0), Point(x: 0, y: 10), Point(x: 10, y: 10), Point(x: 10, y: 0), Point(x: 0, y: 0)]
    static let hole = [Point(x: 2, y: 2), Point(x: 4, y: 2), Point(x: 4, y: 4), Point(x: 2, y: 4), Point(x: 2, y: 2)]
    static let island = [Point(x: 20, y: 20), Point(x: 20, y: 21), Point(x: 21, y: 21), Point(x: 21, y: 20), Point(x: 20, y: 20)]

    static let samples: [OGCGeometry] = [
        .point(Point(x: 13.405, y: 52.52)),
        .multiPoint([Point(x: 1, y: 2), Point(x: 3, y: 4)]),
        .lineString([Point(x: 0, y: 0), Point(x: 1, y: 1)]),
        .multiLineString([[Point(x: 0, y: 0), Point(x: 1, y: 1)], [Point(x: 2, y: 2), Point(x: 3, y: 5)]]),
        .polygon([square, hole]),
        .multiPolygon([[square, hole], [island]]),
    ]

    @Test(arguments: samples) func wkbRoundTrips(_ geometry: OGCGeometry) throws {
        #expect(try WKB.decode(WKB.encode(geometry)) == geometry)
    }

    @Test(arguments: samples) func spatialiteBlobRoundTrips(_ geometry: OGCGeometry) throws {
        let blob = SpatiaLiteBlob.encode(geometry, srid: 4326)
        #expect(try SpatiaLiteBlob.decode(blob) == geometry)
        #expect(SpatiaLiteBlob.envelope(blob) == geometry.envelope)
    }

    @Test(arguments: samples) func geoPackageBinaryRoundTrips(_ geometry: OGCGeometry) throws {
        let blob = GeoPackageBinary.encode(geometry, srsID: 3857)
        #expect(Array(blob.prefix(3)) == [0x47, 0x50, 0])
        let decoded = try GeoPackageBinary.decode(blob)
        #expect(decoded.geometry == geometry)
        #expect(decoded.srsID == 3857)
    }

    @Test func readsBigEndianAndISOZWKB() throws {
        // Big-endian POINT Z (1001) with x=1, y=2, z=3.
        var bytes: [UInt8] = [0x00, 0x00, 0x00, 0x03, 0xE9]
        for value in [1.0, 2.0, 3.0] { bytes += withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init) }
        #expect(try WKB.decode(bytes) == .point(Point(x: 1, y: 2)))
    }

    @Test func rejectsTruncatedAndHostileCounts() {
        let good = WKB.encode(.lineString([Point(x: 0, y: 0), Point(x: 1, y: 1)]))
        #expect(throws: GeometryError.self) { try WKB.decode(Array(good.dropLast(3))) }
        // A linestring claiming four billion points in nine bytes.
        #expect(throws: GeometryError.self) { try WKB.decode([1, 2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]) }
    }

    @Test func esriRingsBecomeOGCPolygonsWithHolesAssigned() {
        // Esri: outer rings clockwise, holes counter-clockwise.
        let outer = RingOrientation.oriented(Self.square, clockwise: true)
        let hole = RingOrientation.oriented(Self.hole, clockwise: false)
        let other = RingOrientation.oriented(Self.island, clockwise: true)
        let polygons = RingOrientation.ogcPolygons(fromEsriRings: [outer, other, hole])
        #expect(polygons.count == 2)
        #expect(polygons[0].count == 2, "the hole belongs to the square")
        #expect(!RingOrientation.isClockwise(polygons[0][0]) && RingOrientation.isClockwise(polygons[0][1]))
        let back = RingOrientation.esriRings(fromOGCPolygons: polygons)
        #expect(back.map(RingOrientation.isClockwise) == [true, false, true])
    }

    @Test func counterClockwiseOnlyPolygonsAreReadAsOuterRings() {
        let ccw = RingOrientation.oriented(Self.square, clockwise: false)
        #expect(RingOrientation.ogcPolygons(fromEsriRings: [ccw]).count == 1)
    }

    @Test func esriJSONRoundTripsEveryType() throws {
        let geometries: [Geometry] = [
            .point(Point(x: -118.15, y: 33.8)), .multipoint([Point(x: 1, y: 2)]),
            .polyline([[Point(x: 0, y: 0), Point(x: 1, y: 1)]]), .polygon([RingOrientation.oriented(Self.square, clockwise: true)]),
            .envelope(Envelope(xmin: 1, ymin: 2, xmax: 3, ymax: 4)),
        ]
        for geometry in geometries {
            let (parsed, _) = try Geometry.fromEsriJSON(geometry.esriJSON)
            #expect(parsed == geometry)
        }
    }

    @Test func queryGeometryShortForms() throws {
        let (envelope, _) = try Geometry.fromQueryParameter("  -100.000,    30.000,   -90.000,    40.000", geometryType: .envelope)
        #expect(envelope == .envelope(Envelope(xmin: -100, ymin: 30, xmax: -90, ymax: 40)))
        let (point, _) = try Geometry.fromQueryParameter("13.4,52.5", geometryType: nil)
        #expect(point == .point(Point(x: 13.4, y: 52.5)))
        let (json, sr) = try Geometry.fromQueryParameter("{'x':1,'y':2,'spatialReference':{'wkid':102100}}", geometryType: .point)
        #expect(json == .point(Point(x: 1, y: 2)) && sr == .webMercator)
        #expect(throws: GeometryError.self) { try Geometry.fromQueryParameter("1,2,3", geometryType: nil) }
        #expect(throws: GeometryError.self) { try Geometry.fromQueryParameter("{\"foo\":1}", geometryType: nil) }
    }

    @Test func validationRejectsBrokenGeometry() {
        #expect(throws: GeometryError.self) { try Geometry.point(Point(x: .infinity, y: 0)).validate() }
        #expect(throws: GeometryError.self) { try Geometry.polyline([[Point(x: 0, y: 0)]]).validate() }
        #expect(throws: GeometryError.self) {
            try Geometry.polygon([[Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 2)]]).validate()
        }
        #expect(throws: GeometryError.self) { try Geometry.envelope(Envelope(xmin: 2, ymin: 0, xmax: 1, ymax: 1)).validate() }
    }

    @Test func geoJSONRoundTrips() throws {
        for geometry in Self.samples {
            var writer = JSONWriter()
            GeoJSONGeometry.write(geometry, to: &writer)
            #expect(try GeoJSONGeometry.decode(try JSONParser.parse(writer.string)) == geometry)
        }
    }
}
