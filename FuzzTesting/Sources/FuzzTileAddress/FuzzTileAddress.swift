import FuzzCommon
import OutpostWire

// Tile and tilemap addresses (`tile/{level}/{row}/{column}`, `tilemap/{level}/{row}/{column}/{width}/{height}`):
// five newline-separated fields. Oracles: a parsed address is inside its level's grid, and a
// block stays inside the grid, starts at the address and is cut only at the grid's edge.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let parts = FuzzInput(start, count).fields(5)
    guard let address = TileAddress.parse(level: parts[0], row: parts[1], column: parts[2]) else { return 0 }
    let described = "\(parts[0])/\(parts[1])/\(parts[2])"
    fuzzCheck((0...TileAddress.deepestLevel).contains(address.level), "\(described): level \(address.level)")
    let side = TileAddress.side(level: address.level)
    fuzzCheck(side > 0 && side == 1 << address.level, "\(described): side \(side)")
    fuzzCheck((0..<side).contains(address.row) && (0..<side).contains(address.column), "\(described): outside the grid: \(address)")
    guard let width = Int(parts[3]), let height = Int(parts[4]) else { return 0 }
    guard let block = address.block(width: width, height: height) else {
        fuzzCheck(!(1...256).contains(width) || !(1...256).contains(height), "\(described): no block \(width)x\(height)")
        return 0
    }
    fuzzCheck((1...256).contains(width) && (1...256).contains(height), "\(described): a block \(width)x\(height)")
    fuzzCheck(block.rows.lowerBound == address.row && block.columns.lowerBound == address.column, "\(described): block \(block)")
    fuzzCheck(block.rows.upperBound < side && block.columns.upperBound < side, "\(described): block \(block) leaves the grid")
    fuzzCheck(block.rows.count <= height && block.columns.count <= width, "\(described): block \(block) larger than asked")
    let cut = block.rows.count < height || block.columns.count < width
    fuzzCheck(block.adjusted == cut, "\(described): adjusted \(block.adjusted) for \(block)")
    if block.rows.count < height { fuzzCheck(block.rows.upperBound == side - 1, "\(described): rows cut before the edge") }
    if block.columns.count < width { fuzzCheck(block.columns.upperBound == side - 1, "\(described): columns cut before the edge") }
    return 0
}

@main
enum FuzzTileAddressMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
