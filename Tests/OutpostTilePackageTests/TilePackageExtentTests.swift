import Foundation
import GRDB
import OutpostGeometry
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostTilePackage

/// The extent a package says it covers (issue 44): the tiles' at the deepest level holding
/// any, so that GDAL, which lays a package out at that level's resolution and crops to it,
/// gets whole tiles, not the city asked for (under a pixel there; 0 × 0 deeper).
@Suite struct TilePackageExtentTests {
    /// Paris, about 3 × 3 km: inside the tile at row 2, column 4 of level 3.
    static let city = WebMercatorTiling.envelope([2.33, 48.84, 2.37, 48.87])

    static func rootJSON(levels: [Int], extent: Envelope = city, aoi: [[Point]]? = nil, source: FixtureTiles) throws -> JSONValue {
        let plan = try TileExportPlanner.plan(levels: levels, extent: extent, areaOfInterest: aoi, maximum: 1000, service: "Fixture:MapServer")
        let path = TestFolders.file("extent.tpkx")
        try TilePackageWriter(description: TilePackageDescription(set: TilePackageWriterTests.set, extent: extent, created: 1), plan: plan)
            .write(to: path, from: source)
        let entries = try #require(TilePackageReading.storedEntries([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))))
        return try JSONParser.parse(String(decoding: try #require(entries["root.json"]), as: UTF8.self))
    }

    static func envelope(_ json: JSONValue?) -> Envelope? {
        guard let json, let xmin = json["xmin"]?.doubleValue, let ymin = json["ymin"]?.doubleValue, let xmax = json["xmax"]?.doubleValue,
            let ymax = json["ymax"]?.doubleValue
        else { return nil }
        return Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }

    @Test func aCitysPackageCoversItsDeepestTileAndStartsOnTheCity() throws {
        let root = try Self.rootJSON(levels: [0, 1, 2, 3], source: FixtureTiles(levels: 0...3))
        let tile = TileExportPlanner.tileEnvelope(level: 3, row: 2, column: 4)
        #expect(Self.envelope(root["fullExtent"]) == tile)
        #expect(root["fullExtent"]?["spatialReference"]?["latestWkid"] == 3857)
        // Laid out as GDAL's ESRIC driver does: whole pixels of level 3 from the origin, 256 a side.
        let resolution = WebMercatorTiling.resolution(level: 3)
        #expect((tile.xmin + WebMercatorTiling.halfWorld) / resolution == 1024 && tile.width / resolution == 256)
        let initial = try #require(Self.envelope(root["initialExtent"]))
        #expect(abs(initial.xmin - Self.city.xmin) < 1e-6 && abs(initial.ymax - Self.city.ymax) < 1e-6 && tile.contains(initial))
    }

    @Test func theExtentIsOfTheDeepestLevelThatHoldsTilesThere() throws {
        // The set has no level 3 here: level 2's tile, the one the city is in.
        let source = FixtureTiles(levels: 0...3)
        source.tiles[3] = source.tiles[3]?.filter { $0.key.row != 2 || $0.key.column != 4 }
        let root = try Self.rootJSON(levels: [1, 2, 3], source: source)
        #expect(Self.envelope(root["fullExtent"]) == TileExportPlanner.tileEnvelope(level: 2, row: 1, column: 2))
        // No tile at all: the area asked for.
        let none = try Self.rootJSON(levels: [2, 3], source: FixtureTiles(levels: 0...1))
        #expect(Self.envelope(none["fullExtent"]) == Self.city && Self.envelope(none["initialExtent"]) == Self.city)
    }

    @Test func withAnAreaOfInterestOnlyTheKeptTilesCount() throws {
        // A thin band across level 3's columns 4 and 5 of row 2, inside a wide export extent.
        let (x, y) = WebMercatorTiling.project(longitude: 10, latitude: 50)
        let (east, _) = WebMercatorTiling.project(longitude: 50, latitude: 50)
        let band = [[Point(x: x, y: y), Point(x: east, y: y), Point(x: east, y: y + 1000), Point(x: x, y: y + 1000), Point(x: x, y: y)]]
        let world = WebMercatorTiling.envelope([-180, -85.0511, 180, 85.0511])
        let root = try Self.rootJSON(levels: [2, 3], extent: world, aoi: band, source: FixtureTiles(levels: 0...3))
        var kept = TileExportPlanner.tileEnvelope(level: 3, row: 2, column: 4)
        kept.expand(TileExportPlanner.tileEnvelope(level: 3, row: 2, column: 5))
        #expect(Self.envelope(root["fullExtent"]) == kept)
    }

    @Test func anMBTilesExportsBoundsAreItsTilesAndItsCenterTheCitys() throws {
        let plan = try TileExportPlanner.plan(levels: [2, 3], extent: Self.city, maximum: 1000, service: "Fixture:MapServer")
        let path = TestFolders.file("extent.mbtiles")
        let description = TilePackageDescription(set: TilePackageWriterTests.set, extent: Self.city, created: 1)
        try MBTilesExportWriter(description: description, plan: plan).write(to: path, from: FixtureTiles(levels: 0...3))
        let metadata = try DatabaseQueue(path: path).read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, value FROM metadata").map { ($0[0] as String, $0[1] as String) })
        }
        // Level 3, row 2, column 4: longitudes 0 to 45, latitudes 40.98 to 66.51.
        #expect(metadata["bounds"] == "0.000000000,40.979898070,45.000000000,66.513260443", "\(metadata)")
        #expect(metadata["center"] == "2.350000,48.855000,2", "\(metadata)")
    }
}
