import FuzzCommon
import OutpostSync
import OutpostWire

// `exportTiles` / `estimateExportTilesSize` requests: the form body as the server decodes it,
// TileExportRequest.parse, then TileExportPlanner.plan over a set of levels 0-20 with the
// server's kind of maximum. A `kind=vector` pair in the form asks for a vector set.
// Oracles: a plan takes at most the maximum, only the set's levels, each once and in order,
// each level's block inside its grid and no more tiles than the block holds; a refusal for
// too many tiles names levels of the request.

private let maximum = 100_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let parameters = RequestParameters(FormURLEncoding.decode(bytes: FuzzInput(start, count).bytes))
    let kind: TileSet.Kind = parameters["kind"] == "vector" ? .vector : .raster
    let set = TileSet(name: "streets", kind: kind, format: kind == .vector ? "pbf" : "png", minZoom: 0, maxZoom: 20, created: 0)
    guard let request = try? TileExportRequest.parse(parameters, kind: kind) else { return 0 }
    do {
        let plan = try TileExportPlanner.plan(request, set: set, maximum: maximum)
        fuzzCheck(plan.tileCount <= maximum, "\(plan.tileCount) tiles planned")
        let levels = plan.levels.map(\.level)
        fuzzCheck(levels == Array(Set(levels)).sorted(), "levels \(levels)")
        for level in plan.levels {
            fuzzCheck((0...20).contains(level.level), "level \(level.level) planned")
            let side = 1 << level.level
            fuzzCheck(level.rows.lowerBound >= 0 && level.rows.upperBound < side, "rows \(level.rows) at level \(level.level)")
            fuzzCheck(level.columns.lowerBound >= 0 && level.columns.upperBound < side, "columns \(level.columns) at level \(level.level)")
            fuzzCheck(level.count >= 0 && level.count <= level.rows.count * level.columns.count, "\(level.count) tiles in \(level)")
        }
    } catch .tooManyTiles(let requested, let maximum, _, let dropLevels) {
        fuzzCheck(requested > maximum, "refused \(requested) tiles of at most \(maximum)")
        fuzzCheck(dropLevels.allSatisfy { (0...20).contains($0) }, "levels to drop \(dropLevels)")
    } catch {
        return 0
    }
    return 0
}

@main
enum FuzzTileExportMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
