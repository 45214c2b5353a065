import Foundation
import OutpostSync
import OutpostWire

/// Writes a `.tpkx` (Esri's open tile package specification, §3.4): a stored zip holding
/// `root.json`, `iteminfo.json` and `tile/Lnn/RrrrrCcccc.bundle` in Compact Cache V2, each
/// tile's bytes exactly as the set holds them.
///
/// Tiles stream from the source into the archive: each bundle is laid out from its tiles'
/// sizes, then written header, index and tiles in one go, so memory stays one bundle's index
/// whatever the export's size.
public struct TilePackageWriter {
    public let description: TilePackageDescription
    public let plan: TileExportPlan

    public init(description: TilePackageDescription, plan: TileExportPlan) {
        self.description = description
        self.plan = plan
    }

    /// Writes the package to `path`; `progress` hears the tiles written so far. Returns how
    /// many tiles it holds.
    @discardableResult
    public func write(to path: String, from source: some TileExportSource, progress: (Int) throws -> Void = { _ in }) throws -> Int {
        let covered = try source.extent(of: plan)
        let zip = try StoredZipWriter(path: path)
        try zip.addEntry("root.json", bytes: Array(rootJSON(tilesExtent: covered).jsonText.utf8))
        try zip.addEntry("iteminfo.json", bytes: Array(itemInfoJSON.jsonText.utf8))
        var written = 0
        for level in plan.levels {
            for block in level.bundleBlocks {
                let sizes = try source.tileSizes(level: level.level, rows: block.rows, columns: block.columns)
                    .filter { plan.includes(level, row: $0.row, column: $0.column) }
                guard let first = sizes.first else { continue }
                var bundle = CompactCacheBundle(containing: first.row, first.column)
                for tile in sizes { bundle.append(row: tile.row, column: tile.column, size: tile.byteCount) }
                try zip.beginEntry("tile/\(CompactCacheBundle.levelFolder(level.level))/\(bundle.fileName)", size: bundle.fileSize)
                try zip.write(bundle.headerAndIndex)
                var next = 0
                try source.readTiles(level: level.level, rows: block.rows, columns: block.columns) { tile, bytes in
                    guard plan.includes(level, row: tile.row, column: tile.column) else { return }
                    // The bytes must be the ones the layout measured, in the same order.
                    guard next < sizes.count, sizes[next] == StoredTile(row: tile.row, column: tile.column, byteCount: bytes.count) else {
                        throw TilePackageWriteError.tilesChanged(level: level.level)
                    }
                    try zip.write(CompactCacheBundle.sizePrefix(bytes.count))
                    try zip.write(bytes)
                    next += 1
                }
                guard next == sizes.count else { throw TilePackageWriteError.tilesChanged(level: level.level) }
                try zip.endEntry()
                written += sizes.count
                try progress(written)
            }
        }
        try zip.finish()
        return written
    }

    /// `root.json`: the tiling, the levels held, the extents, the storage. `fullExtent` is the
    /// tiles' (`TileExportSource.extent(of:)`: GDAL's ESRIC driver crops to it, and the area
    /// asked for may be under a pixel at the deepest level), `initialExtent` the area asked for.
    func rootJSON(tilesExtent: Envelope?) -> JSONValue {
        let set = description.set
        let full = tilesExtent ?? description.extent
        let asked = description.extent.intersection(full)
        let initial = asked.isEmpty ? full : asked
        let levels = plan.levels.map(\.level)
        let minLOD = levels.min() ?? set.minZoom
        let maxLOD = levels.max() ?? set.maxZoom
        var tileInfo = WebMercatorTiling.tileInfo(maxZoom: max(maxLOD, set.maxZoom), format: set.format)
        if case .object(var object) = tileInfo {
            object["format"] = nil
            object["compressionQuality"] = nil
            tileInfo = .object(object)
        }
        return [
            "name": .string(set.name), "version": 1.0, "serviceDescription": .string(set.description), "tileBundlesPath": "./tile",
            "spatialReference": WebMercatorTiling.spatialReference, "units": "esriMeters",
            "minLOD": .int(Int64(minLOD)), "maxLOD": .int(Int64(maxLOD)),
            "minScale": .double(WebMercatorTiling.scale(level: minLOD)), "maxScale": .double(WebMercatorTiling.scale(level: maxLOD)),
            "resampling": false, "tileInfo": tileInfo,
            "tileImageInfo": [
                "format": .string(WebMercatorTiling.esriFormat(set.format)), "compressionQuality": set.format == "jpg" ? 75 : 0,
                "bandCount": set.format == "jpg" ? 3 : 4,
            ],
            "storageInfo": ["storageFormat": "esriMapCacheStorageModeCompactV2", "packetSize": .int(Int64(CompactCacheBundle.side))],
            "exportTilesAllowed": false, "initialExtent": WebMercatorTiling.extent(initial),
            "fullExtent": WebMercatorTiling.extent(full),
        ]
    }

    /// `iteminfo.json`: the package as a portal item would describe it.
    var itemInfoJSON: JSONValue {
        let set = description.set
        let bounds = description.bounds
        return [
            "name": .string(set.name), "title": .string(set.name), "guid": .string(GlobalID.make().uppercased()), "version": 1.0,
            "created": .int(description.created), "snippet": .string(set.description), "description": .string(set.description),
            "summary": .string(set.description), "tags": "", "creator": "Outpost exportTiles",
            "type": "Compact Tile Package", "typeKeywords": ["Compact Tile Package", "Tile Package", "tpkx"],
            "extent": [
                "xmin": .double(bounds[0]), "ymin": .double(bounds[1]), "xmax": .double(bounds[2]), "ymax": .double(bounds[3]),
                "spatialReference": ["wkid": 4326, "latestWkid": 4326],
            ],
        ]
    }
}
