import Foundation
import GRDB
import OutpostWire

/// MBTiles files made for the tests, as tools write them (a `tiles` table) or as mbutil does
/// (`map` and `images`, `tiles` a view), and hostile variants made by extra SQL.
public enum MBTilesFixtures {
    /// A 4 × 4 PNG of one colour.
    public static func png(_ shade: UInt8 = 40) -> [UInt8] { PNGImage(width: 4, height: 4, background: .init(shade, 90, 140)).bytes }

    /// A vector tile's bytes: one empty layer named "a" (field 3, then the layer's name, field 1).
    public static let vectorTile: [UInt8] = [0x1a, 0x05, 0x0a, 0x01, 0x61, 0x78, 0x02]

    /// A file at a new path: `metadata` rows, then `tiles` as (level, column, TMS row, bytes),
    /// then `extraSQL` run last (to make it hostile).
    public static func make(
        format: String = "png", layout: Layout = .table, tiles: [(Int, Int, Int, [UInt8])]? = nil, extraSQL: String = "",
        uniqueIndex: Bool = true
    ) throws -> String {
        let path = TestFolders.file("tiles.mbtiles")
        let queue = try DatabaseQueue(path: path)
        let tiles = tiles ?? [(0, 0, 0, png(10)), (1, 0, 0, png(20)), (1, 1, 1, png(30))]
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE metadata (name TEXT, value TEXT)")
            for (name, value) in [("name", "Fixture"), ("format", format), ("minzoom", "0"), ("maxzoom", "1"), ("bounds", "-180,-85,180,85")] {
                try db.execute(sql: "INSERT INTO metadata VALUES (?, ?)", arguments: [name, value])
            }
            switch layout {
            case .table:
                try db.execute(sql: "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
                if uniqueIndex { try db.execute(sql: "CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row)") }
                for (level, column, row, bytes) in tiles {
                    try db.execute(sql: "INSERT INTO tiles VALUES (?, ?, ?, ?)", arguments: [level, column, row, Data(bytes)])
                }
            case .mapAndImages:
                try db.execute(
                    sql: """
                        CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
                        CREATE TABLE images (tile_data BLOB, tile_id TEXT);
                        CREATE VIEW tiles AS SELECT map.zoom_level, map.tile_column, map.tile_row, images.tile_data
                            FROM map JOIN images ON images.tile_id = map.tile_id;
                        """)
                for (index, (level, column, row, bytes)) in tiles.enumerated() {
                    try db.execute(sql: "INSERT INTO map VALUES (?, ?, ?, ?)", arguments: [level, column, row, "t\(index)"])
                    try db.execute(sql: "INSERT INTO images VALUES (?, ?)", arguments: [Data(bytes), "t\(index)"])
                }
            }
            if !extraSQL.isEmpty { try db.execute(sql: extraSQL) }
        }
        try queue.close()
        return path
    }

    public enum Layout: Sendable { case table, mapAndImages }
}
