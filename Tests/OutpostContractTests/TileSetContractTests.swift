import Foundation
import GRDB
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// The `TileSetStore` contract, for every backend, over the demo tile files.
@Suite struct TileSetContractTests {
    static let raster = TestFolders.testdata + "/demo-raster.mbtiles"
    static let vector = TestFolders.testdata + "/demo-vector.mbtiles"

    @Test(arguments: ContractBackend.all) func tilesComeBackByTopOriginRows(_ contract: ContractBackend) throws {
        let (backend, _) = try contract.fresh()
        let set = try backend.tiles.addTileSet(mbtiles: Self.raster, name: "Basemap", description: nil)
        #expect(set.kind == .raster && set.format == "png" && set.minZoom == 0 && set.maxZoom == 5)
        #expect(try backend.tiles.tileSet(named: "basemap") == set)
        // Level 2, row 1 from the top is MBTiles row 2 (rows counted from the bottom).
        let expected = try DatabaseQueue(path: Self.raster).read { db in
            try Data.fetchOne(db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = 2 AND tile_column = 3 AND tile_row = 2")
        }
        #expect(try backend.tiles.tile(set: "Basemap", level: 2, row: 1, column: 3).map { Data($0) } == expected)
        #expect(try backend.tiles.tile(set: "Basemap", level: 6, row: 0, column: 0) == nil)
        let present = try backend.tiles.tilesPresent(set: "Basemap", level: 1, row: 0, column: 0, height: 2, width: 3)
        #expect(present == [[true, true, false], [true, true, false]])
    }

    @Test(arguments: ContractBackend.all) func aVectorSetKeepsItsLayersAndBadFilesAreRefused(_ contract: ContractBackend) throws {
        let (backend, _) = try contract.fresh()
        let set = try backend.tiles.addTileSet(mbtiles: Self.vector, name: "Folder/Vector", description: "v")
        #expect(set.kind == .vector && set.format == "pbf")
        #expect(Set(set.metadata["vector_layers"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []) == ["countries", "cities"])
        #expect(throws: TileSetFailure.exists("folder/vector")) {
            try backend.tiles.addTileSet(mbtiles: Self.vector, name: "folder/vector", description: nil)
        }
        #expect(throws: TileSetFailure.self) { try backend.tiles.addTileSet(mbtiles: Self.vector, name: "../x", description: nil) }
        let notTiles = NSTemporaryDirectory() + "not-tiles-\(UUID().uuidString).mbtiles"
        try DatabaseQueue(path: notTiles).write { db in try db.execute(sql: "CREATE TABLE metadata(name TEXT, value TEXT)") }
        #expect(throws: TileSetFailure.self) { try backend.tiles.addTileSet(mbtiles: notTiles, name: "Nope", description: nil) }
        #expect(try backend.tiles.tileSets().map(\.name) == ["Folder/Vector"])
    }
}
