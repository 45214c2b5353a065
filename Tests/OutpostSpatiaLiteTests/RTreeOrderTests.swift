import Foundation
import GRDB
import OutpostWire
import Testing

@testable import OutpostSQLite

/// The packing order of `RTreeBulkLoader` (Sort-Tile-Recursive) is computed with radix-sorted
/// integer keys; it must be exactly the order a comparison sort gives: by centre x (ties by
/// position), then each slice by centre y (ties by x order).
@Suite struct RTreeOrderTests {
    @Test(arguments: [1, 50, 51, 52, 2_601, 7_919])
    func strOrderIsTheComparisonSortsOrder(count: Int) {
        let loader = RTreeBulkLoader(nodeSize: 1228)
        var random = SeededGenerator(seed: UInt64(count))
        // Rounded to a tenth so ties (and signed zeros) occur.
        func coordinate() -> Double { (Double(random.next() % 3_601) - 1_800) / 10 }
        let entries = (0..<count).map { n in
            let x = coordinate()
            let y = coordinate()
            return RTreeBulkLoader.Entry(id: Int64(n), envelope: Envelope(xmin: x, ymin: y, xmax: x + Double(n % 3), ymax: y))
        }
        let nodeCount = (count + loader.maxCells - 1) / loader.maxCells
        let sliceSize = Int(Double(nodeCount).squareRoot().rounded(.up)) * loader.maxCells
        let byX = entries.indices.sorted { (entries[$0].centerX, $0) < (entries[$1].centerX, $1) }
        var expected: [Int] = []
        for start in stride(from: 0, to: byX.count, by: sliceSize) {
            let slice = Array(byX[start..<min(start + sliceSize, byX.count)]).enumerated()
            expected += slice.sorted { (entries[$0.element].centerY, $0.offset) < (entries[$1.element].centerY, $1.offset) }.map(\.element)
        }
        #expect(loader.strOrder(entries).map(Int.init) == expected)
    }

    @Test func keysSortAsTheirFloats() {
        let values: [Float] = [-.infinity, -1e30, -2.5, -1, -0.0, 0, 1e-30, 1, 2.5, 1e30, .infinity]
        let keys = values.enumerated().map { RTreeBulkLoader.key($0.offset, $0.element) >> 32 }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0.0 <= $0.1 })
        #expect(keys[4] == keys[5], "−0 and +0 are one key")
    }

    /// Entries in any id order and of any count (not a whole number of the loader's batches)
    /// load a tree SQLite's own check accepts, every entry's rowid row in place.
    @Test func entriesInAnyOrderLoadATreeSQLiteAccepts() throws {
        var random = SeededGenerator(seed: 11)
        let entries = (0..<3_001).map { n in
            let x = Double(random.next() % 1_000)
            return RTreeBulkLoader.Entry(id: Int64(n * 7 + 1), envelope: Envelope(xmin: x, ymin: x / 2, xmax: x + 1, ymax: x / 2 + 1))
        }.shuffled(using: &random)
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE t USING rtree(id, minx, maxx, miny, maxy)")
            try RTreeBulkLoader.load(entries, into: "t", db: db)
            #expect(try String.fetchOne(db, sql: "SELECT rtreecheck('t')") == "ok")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t_rowid") == entries.count)
            #expect(
                try Int64.fetchAll(db, sql: "SELECT id FROM t WHERE minx <= 10 AND maxx >= 5 ORDER BY id")
                    == entries.filter { $0.minX <= 10 && $0.maxX >= 5 }.map(\.id).sorted())
        }
    }
}
