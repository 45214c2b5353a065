import Foundation
import OutpostWire
import Testing

@testable import OutpostGeometry

/// Hostile input for every geometry decoder: Esri JSON, WKB, GeoPackage and SpatiaLite blobs.
/// Each answers a geometry or a `GeometryError`; valid inputs round-trip.
@Suite struct HostileGeometryTests {
    static let cases = 4000
    static let samples: [Geometry] = [
        .point(Point(x: 13.4, y: 52.5)),
        .multipoint([Point(x: 1, y: 2), Point(x: 3, y: 4)]),
        .polyline([[Point(x: 0, y: 0), Point(x: 1, y: 1), Point(x: 2, y: 0)]]),
        .polygon([[Point(x: 0, y: 0), Point(x: 0, y: 1), Point(x: 1, y: 1), Point(x: 1, y: 0), Point(x: 0, y: 0)]]),
    ]

    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func mutate(_ input: [UInt8], _ random: inout Random) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
            let position = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.insert(UInt8.random(in: 0...255, using: &random), at: position)
            case 2: bytes.remove(at: position)
            default: bytes = Array(bytes.prefix(position))
            }
        }
        return bytes
    }

    @Test func binaryDecoders() throws {
        var random = Random(state: 0x5EED_0010)
        var decoded = (wkb: 0, gpkg: 0, spatialite: 0)
        for index in 0..<Self.cases {
            let ogc = Self.samples[index % Self.samples.count].ogc
            let wkb = WKB.encode(ogc)
            let gpkg = GeoPackageBinary.encode(ogc, srsID: 4326)
            let spatialite = SpatiaLiteBlob.encode(ogc, srid: 4326)
            if index < Self.samples.count {
                #expect(try WKB.decode(wkb) == ogc && GeoPackageBinary.decode(gpkg).geometry == ogc && SpatiaLiteBlob.decode(spatialite) == ogc)
            }
            if (try? WKB.decode(Self.mutate(wkb, &random))) != nil { decoded.wkb += 1 }
            if (try? GeoPackageBinary.decode(Self.mutate(gpkg, &random))) != nil { decoded.gpkg += 1 }
            if (try? SpatiaLiteBlob.decode(Self.mutate(spatialite, &random))) != nil { decoded.spatialite += 1 }
        }
        // A count claiming four billion points in a 30-byte blob is refused, not allocated.
        var huge = WKB.encode(.lineString([Point(x: 0, y: 0)]))
        huge.replaceSubrange(5..<9, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect((try? WKB.decode(huge)) == nil)
        #expect(decoded.wkb < Self.cases && decoded.gpkg < Self.cases && decoded.spatialite < Self.cases)
    }

    @Test func esriJSONGeometries() {
        var random = Random(state: 0x5EED_0011)
        var parsed = 0
        for index in 0..<Self.cases {
            var w = JSONWriter()
            Self.samples[index % Self.samples.count].writeEsriJSON(to: &w)
            let text = Self.mutate(w.bytes, &random)
            guard let json = try? JSONParser.parse(bytes: text) else { continue }
            if let (geometry, _) = try? Geometry.fromEsriJSON(json), (try? geometry.validate()) != nil { parsed += 1 }
        }
        #expect(parsed > 0)
        // More vertices than any feature needs is refused before anything is built on them.
        let many = JSONValue.object(["points": .array(Array(repeating: [.double(1), .double(2)], count: Geometry.maximumVertices + 1))])
        #expect(throws: GeometryError.self) { try Geometry.fromEsriJSON(many) }
    }

    /// A filter geometry (query, replica) is tested against every candidate row: it may have
    /// `maximumFilterVertices`, test_cpu_bounds.py measured 4.4 s of CPU at 100,000 over 2,500 features.
    @Test func filterGeometriesAreBoundedBeforeAnyRowIsTested() throws {
        func ring(_ count: Int) -> String {
            "{\"rings\":[[" + (0..<count).map { "[\($0 % 100),\($0 / 100)]" }.joined(separator: ",") + "]]}"
        }
        #expect(try Geometry.fromQueryParameter(ring(Geometry.maximumFilterVertices), geometryType: .polygon).0.vertexCount == 10_000)
        #expect(throws: GeometryError.self) { try Geometry.fromQueryParameter(ring(Geometry.maximumFilterVertices + 1), geometryType: .polygon) }
        let long = "{\"x\":1,\"y\":2,\"pad\":\"" + String(repeating: " ", count: Geometry.maximumFilterBytes) + "\"}"
        #expect(throws: GeometryError.self) { try Geometry.fromQueryParameter(long, geometryType: .point) }
    }
}
