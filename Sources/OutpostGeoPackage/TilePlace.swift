import GRDB

/// A tile's place, checked: integers, the level within `UntrustedMBTiles.levels`, the column
/// and row within the level.
struct TilePlace: CustomStringConvertible {
    let level: Int64
    let column: Int64
    let row: Int64

    init(_ row: Row) throws {
        guard case .int64(let level) = (row[0] as DatabaseValue).storage, case .int64(let column) = (row[1] as DatabaseValue).storage,
            case .int64(let tileRow) = (row[2] as DatabaseValue).storage
        else { throw ReplicaChanges.Failure.invalid("a tile's level, column or row is not an integer") }
        (self.level, self.column, self.row) = (level, column, tileRow)
        guard UntrustedMBTiles.levels.contains(Int(clamping: level)) else {
            throw ReplicaChanges.Failure.invalid("\(self): levels go from 0 to \(UntrustedMBTiles.levels.upperBound)")
        }
        guard (0..<(Int64(1) << level)).contains(column), (0..<(Int64(1) << level)).contains(tileRow) else {
            throw ReplicaChanges.Failure.invalid("\(self) is outside its level")
        }
    }

    var description: String { "tile \(level)/\(column)/\(row)" }
}
