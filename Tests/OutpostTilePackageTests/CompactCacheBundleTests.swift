import OutpostSync
import OutpostTestSupport
import Testing

@testable import OutpostTilePackage

/// The Compact Cache V2 layout (docs/tiles.md, "Formats written"), row by row of its table.
@Suite struct CompactCacheBundleTests {
    typealias Read = TilePackageReading

    @Test func theHeaderHoldsArcGISsConstantsTheSizesAndTheIndexSize() {
        var bundle = CompactCacheBundle(containing: 0, 0)
        bundle.append(row: 0, column: 1, size: 300)
        bundle.append(row: 2, column: 0, size: 1200)
        let bytes = bundle.headerAndIndex
        #expect(bytes.count == 64 + 131_072)
        #expect(Read.u32(bytes, 0) == 3 && Read.u32(bytes, 4) == 16384 && Read.u32(bytes, 12) == 5, "version, records, offset size")
        #expect(Read.u32(bytes, 8) == 1200, "the largest tile")
        #expect(Read.u64(bytes, 16) == 0, "no slack space")
        let fileSize: UInt64 = 64 + 131_072 + 4 + 300 + 4 + 1200
        #expect(Read.u64(bytes, 24) == fileSize, "the file's size")
        #expect(Read.u64(bytes, 32) == 40, "user header offset")
        #expect(Read.u32(bytes, 40) == UInt32(20 + 131_072), "user header size")
        let legacy: [UInt32] = [44, 48, 52, 56].map { Read.u32(bytes, $0) }
        #expect(legacy == [3, 16, 16384, 5], "legacy fields as ArcGIS writes them")
        #expect(Read.u32(bytes, 60) == 131_072, "the index's size")
    }

    @Test func indexEntriesAreRowMajorAndPointPastEachTilesSizePrefix() {
        var bundle = CompactCacheBundle(containing: 130, 260)
        bundle.append(row: 129, column: 257, size: 10)
        bundle.append(row: 128, column: 256, size: 20)
        let first = UInt64(64 + 131_072 + 4)
        #expect(bundle.index[1 * 128 + 1] == first | (10 << 40))
        #expect(bundle.index[0] == (first + 10 + 4) | (20 << 40), "the second tile after the first's bytes and its own prefix")
        #expect(bundle.index.filter { $0 != 0 }.count == 2, "every other entry is a missing tile")
        #expect(CompactCacheBundle.sizePrefix(20) == [20, 0, 0, 0])
    }

    @Test func bundlesAreNamedByTheirTopLeftTileInLowercaseHex() {
        #expect(CompactCacheBundle(containing: 0, 0).fileName == "R0000C0000.bundle")
        #expect(CompactCacheBundle(containing: 130, 300).fileName == "R0080C0100.bundle")
        #expect(CompactCacheBundle(containing: 3000, 4095).fileName == "R0b80C0f80.bundle")
        #expect(CompactCacheBundle.levelFolder(3) == "L03" && CompactCacheBundle.levelFolder(12) == "L12")
    }

    @Test func aLevelsTilesSplitIntoBlocksThatNeverStraddleABundle() {
        let level = TileExportLevelFixture.level(9, rows: 100...300, columns: 5...10)
        let blocks = level.bundleBlocks
        #expect(blocks.map(\.rows) == [100...127, 128...255, 256...300])
        #expect(blocks.allSatisfy { $0.columns == 5...10 })
    }
}

enum TileExportLevelFixture {
    static func level(_ level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>) -> TileExportLevel {
        TileExportLevel(level: level, rows: rows, columns: columns, count: rows.count * columns.count)
    }
}
