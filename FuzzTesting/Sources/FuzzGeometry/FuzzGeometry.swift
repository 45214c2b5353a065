import FuzzCommon
import OutpostGeometry
import OutpostWire

// Geometry decoders, by the input's first byte: `E` Esri JSON (JSONParser, then
// Geometry.fromEsriJSON), `Q` a query's `geometry` parameter (fromQueryParameter; the second
// byte picks the geometryType), `W` WKB, `G` GeoPackage binary, `S` a SpatiaLite blob, `J`
// GeoJSON; any other byte picks one of these by its value.
//
// Oracles: the binary formats decode what they encode, byte for byte, and each geometry
// decoded survives a trip through every binary format; Esri JSON written, read and written
// again is the same text; a valid Esri polygon loses no vertex on its way to OGC and back.

private let modes: [UInt8] = Array("EQWGSJ".utf8)

/// WKB, GeoPackage and SpatiaLite forms of `geometry` each decode to it (compared as WKB).
private func checkBinaryTrips(_ geometry: OGCGeometry, _ origin: String) {
    let wkb = WKB.encode(geometry)
    do {
        let decoded = try WKB.decode(wkb)
        fuzzCheck(WKB.encode(decoded) == wkb, "\(origin): WKB does not decode to itself")
        let gpb = try GeoPackageBinary.decode(GeoPackageBinary.encode(geometry, srsID: 4326))
        fuzzCheck(WKB.encode(gpb.geometry) == wkb && gpb.srsID == 4326, "\(origin): GeoPackage binary does not decode to itself")
        let spatiaLite = try SpatiaLiteBlob.decode(SpatiaLiteBlob.encode(geometry, srid: 3857))
        fuzzCheck(WKB.encode(spatiaLite) == wkb, "\(origin): a SpatiaLite blob does not decode to itself")
    } catch {
        fuzzCheck(false, "\(origin): an encoded geometry does not decode: \(error)")
    }
    checkEsri(Geometry(ogc: geometry), origin)
}

private func esriText(_ geometry: Geometry) -> [UInt8] {
    var writer = JSONWriter()
    geometry.writeEsriJSON(to: &writer)
    return writer.bytes
}

private func allFinite(_ geometry: Geometry) -> Bool {
    switch geometry {
    case .point: true  // Written as null when not finite, read back as NaN.
    case .multipoint(let points): points.allSatisfy { $0.x.isFinite && $0.y.isFinite }
    case .polyline(let parts), .polygon(let parts): parts.allSatisfy { $0.allSatisfy { $0.x.isFinite && $0.y.isFinite } }
    case .envelope: true
    }
}

/// Esri JSON reaches a fixed point; a valid polygon keeps its vertices through OGC.
private func checkEsri(_ geometry: Geometry, _ origin: String) {
    _ = geometry.envelope
    _ = geometry.isEmpty
    if allFinite(geometry) {
        let text = esriText(geometry)
        do {
            let (again, _) = try Geometry.fromEsriJSON(try JSONParser.parse(bytes: text))
            fuzzCheck(esriText(again) == text, "\(origin): Esri JSON \(String(decoding: text, as: UTF8.self)) is no fixed point")
        } catch {
            fuzzCheck(false, "\(origin): Esri JSON written does not read back (\(error)): \(String(decoding: text, as: UTF8.self))")
        }
    }
    guard (try? geometry.validate()) != nil else { return }
    let ogc = geometry.ogc
    let back = Geometry(ogc: ogc)
    fuzzCheck(back.vertexCount == geometry.polygonized.vertexCount, "\(origin): \(geometry) loses vertices through OGC: \(back)")
    _ = WKB.encode(ogc)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let (first, rest) = FuzzInput(start, count).split else { return 0 }
    let mode = modes.contains(first) ? first : modes[Int(first) % modes.count]
    switch mode {
    case UInt8(ascii: "E"):
        guard let json = try? JSONParser.parse(bytes: rest), let (geometry, _) = try? Geometry.fromEsriJSON(json) else { return 0 }
        checkEsri(geometry, "Esri JSON")
        if (try? geometry.validate()) != nil { checkBinaryTrips(geometry.ogc, "Esri JSON") }
    case UInt8(ascii: "Q"):
        guard let (selector, text) = FuzzInput(bytes: rest).split else { return 0 }
        let types: [EsriGeometryType?] = [nil] + EsriGeometryType.allCases
        let type = types[Int(selector) % types.count]
        guard let (geometry, _) = try? Geometry.fromQueryParameter(String(decoding: text, as: UTF8.self), geometryType: type) else { return 0 }
        checkEsri(geometry, "geometry parameter")
    case UInt8(ascii: "W"):
        guard let geometry = try? WKB.decode(rest) else { return 0 }
        checkBinaryTrips(geometry, "WKB")
    case UInt8(ascii: "G"):
        _ = try? GeoPackageBinary.header(rest)
        guard let (geometry, _) = try? GeoPackageBinary.decode(rest) else { return 0 }
        checkBinaryTrips(geometry, "GeoPackage binary")
    case UInt8(ascii: "S"):
        _ = SpatiaLiteBlob.envelope(rest)
        guard let geometry = try? SpatiaLiteBlob.decode(rest) else { return 0 }
        checkBinaryTrips(geometry, "SpatiaLite")
    default:
        guard let json = try? JSONParser.parse(bytes: rest), let geometry = try? GeoJSONGeometry.decode(json) else { return 0 }
        var writer = JSONWriter()
        GeoJSONGeometry.write(geometry, to: &writer)
        if let again = try? JSONParser.parse(bytes: writer.bytes), let reread = try? GeoJSONGeometry.decode(again) {
            var second = JSONWriter()
            GeoJSONGeometry.write(reread, to: &second)
            fuzzCheck(second.bytes == writer.bytes, "GeoJSON is no fixed point: \(writer.string)")
        }
        checkBinaryTrips(geometry, "GeoJSON")
    }
    return 0
}

@main
enum FuzzGeometryMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
