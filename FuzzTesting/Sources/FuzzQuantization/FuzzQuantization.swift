import FuzzCommon
import OutpostGeometry
import OutpostWire

// A layer query's tile parameters and a geometry quantized on their grid. The input's lines:
// `quantizationParameters`, `outSR`, an Esri JSON geometry, `resultType`,
// `maxRecordCountFactor`, `maxAllowableOffset` (LayerQuery.parse, QuantizationParameters.grid,
// QuantizationGrid.quantize).
//
// Oracles: the page size is between 0 and 2^31; every vertex a client decodes (the transform
// applied, deltas summed) lies within half a cell of a vertex of the original part, in order;
// in view mode no vertex repeats the cell of the one before and no kept part is degenerate;
// the JSON written holds only integers a double holds exactly.

private let layer = LayerDefinition(
    id: 0, name: "Fuzz", kind: .featureLayer, geometryType: .polyline, spatialReference: .wgs84,
    fields: LayerDefinition.withSystemFields([]), maxRecordCount: 2000)

/// Whether `a` is within half a cell of `b`, allowing for the rounding of large coordinates.
private func near(_ a: Double, _ b: Double, cell: Double, translate: Double) -> Bool {
    abs(a - b) <= cell / 2 + 1e-9 * max(1, abs(a), abs(b), abs(translate))
}

private func checkNumbers(_ value: JSONValue) {
    switch value {
    case .int(let i): fuzzCheck(i.magnitude <= 1 << 53, "a quantized number beyond 2^53: \(i)")
    case .double(let d): fuzzCheck(false, "a quantized geometry holds a fraction: \(d)")
    case .array(let items): items.forEach(checkNumbers)
    case .object(let object): for member in object { checkNumbers(member.value) }
    default: break
    }
}

private func check(_ geometry: Geometry, on grid: QuantizationGrid) {
    let quantized: QuantizedGeometry?
    do { quantized = try grid.quantize(geometry) } catch {
        fuzzCheck(error.code == 400, "quantize failed with \(error)")
        return
    }
    guard let quantized else { return }
    var writer = JSONWriter()
    quantized.writeEsriJSON(to: &writer)
    guard let written = try? JSONParser.parse(bytes: writer.bytes) else {
        fuzzCheck(false, "quantized JSON does not parse: \(writer.string)")
        return
    }
    checkNumbers(written)
    let originals: [[Point]] =
        switch geometry {
        case .point(let p): [[p]]
        case .multipoint(let points): [points]
        case .polyline(let parts), .polygon(let parts): parts
        case .envelope: []
        }
    guard !originals.isEmpty else { return }
    let decoded = quantized.decoded(on: grid)
    var nextOriginal = 0
    for part in decoded {
        // Each kept part comes from a later original part.
        var matched = false
        while nextOriginal < originals.count && !matched {
            let original = originals[nextOriginal]
            nextOriginal += 1
            var index = 0
            var ok = true
            for p in part {
                while index < original.count,
                    !(near(p.x, original[index].x, cell: grid.scaleX, translate: grid.translateX)
                        && near(p.y, original[index].y, cell: grid.scaleY, translate: grid.translateY))
                {
                    index += 1
                }
                if index == original.count { ok = false }
            }
            matched = ok
        }
        fuzzCheck(matched, "a decoded part \(part) is no original part's vertices on the grid")
        if !grid.keepsEveryVertex {
            fuzzCheck(zip(part, part.dropFirst()).allSatisfy { $0 != $1 }, "a repeated cell was kept: \(part)")
            let minimum = quantized.type == .polyline ? 2 : quantized.type == .polygon ? 4 : 1
            fuzzCheck(part.count >= minimum, "a degenerate part was kept: \(part)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let lines = FuzzInput(start, count).fields(6)
    let pairs = [
        ("quantizationParameters", lines[0]), ("outSR", lines[1]), ("resultType", lines[3]), ("maxRecordCountFactor", lines[4]),
        ("maxAllowableOffset", lines[5]),
    ]
    guard let query = try? LayerQuery.parse(RequestParameters(pairs)) else { return 0 }
    let page = query.pageSize(for: layer)
    fuzzCheck(page >= 0 && page <= Int(Int32.max), "page size \(page)")
    let grid: QuantizationGrid?
    // Without PROJ here: WGS 84 is degrees, every other reference taken as projected.
    do { grid = try query.quantizationGrid(for: layer, coordinateSystem: { $0.epsg == 4326 ? .degrees : .projected }) } catch {
        fuzzCheck(error.code == 400, "grid failed with \(error)")
        return 0
    }
    guard let grid else { return 0 }
    fuzzCheck(grid.scaleX > 0 && grid.scaleY > 0 && grid.scaleX.isFinite && grid.scaleY.isFinite, "grid \(grid)")
    guard let json = try? JSONParser.parse(lines[2]), let (geometry, _) = try? Geometry.fromEsriJSON(json) else { return 0 }
    check(geometry, on: grid)
    return 0
}

@main
enum FuzzQuantizationMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
