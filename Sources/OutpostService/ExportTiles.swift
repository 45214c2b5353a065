import OutpostStorage
import OutpostSync
import OutpostTilePackage
import OutpostWire

/// `exportTiles` and `estimateExportTilesSize` of a tile set (docs/tiles.md, "Export"): the
/// plan (`TileExportPlanner`), then the package written from the backend's tiles, or the
/// tiles and bytes it would take.
public struct ExportTiles<Backend: OutpostBackend>: Sendable {
    public let backend: Backend
    public let set: TileSet
    public let plan: TileExportPlan
    public let request: TileExportRequest

    /// Plans the export of `request` from `set`, refusing more than `maximum` tiles.
    public init(backend: Backend, set: TileSet, request: TileExportRequest, maximum: Int = TileServiceInfo.maxExportTilesCount) throws {
        self.backend = backend
        self.set = set
        self.request = request
        plan = try TileExportPlanner.plan(request, set: set, maximum: maximum)
    }

    /// The package's file name as the client will save it (`DemoBasemap.tpkx`).
    public var packageName: String { "\(set.name.replacingOccurrences(of: "/", with: "_")).\(request.format.fileExtension)" }

    /// The export's extent: the request's within the set's, in Web Mercator metres.
    var extent: Envelope {
        let setExtent = WebMercatorTiling.envelope(set.bounds)
        return (request.extent ?? setExtent).intersection(setExtent)
    }

    /// `estimateExportTilesSize`'s value: the tiles the set holds of the plan and the package's
    /// size in bytes, counted from the tiles' own sizes (exact for a `.tpkx`).
    public func estimate() throws -> JSONValue {
        let source = StoreTileSource(store: backend.tiles, set: set.name)
        var tiles = 0
        var bytes = 0
        for level in plan.levels {
            for block in level.bundleBlocks {
                let sizes = try source.tileSizes(level: level.level, rows: block.rows, columns: block.columns)
                    .filter { plan.includes(level, row: $0.row, column: $0.column) }
                guard !sizes.isEmpty else { continue }
                tiles += sizes.count
                bytes += CompactCacheBundle.overhead + sizes.reduce(0) { $0 + 4 + $1.byteCount }
            }
        }
        return ["totalSize": .int(Int64(bytes)), "totalTilesToExport": .int(Int64(tiles))]
    }

    /// Writes the package to `path`; `progress` hears the tiles written of the plan's.
    @discardableResult
    public func write(to path: String, progress: (JobProgress) throws -> Void = { _ in }) throws -> Int {
        let source = StoreTileSource(store: backend.tiles, set: set.name)
        let description = TilePackageDescription(set: set, extent: extent, created: backend.clock.milliseconds())
        let total = plan.tileCount
        let report = { (done: Int) throws in try progress(JobProgress(done: done, total: total)) }
        switch request.format {
        case .tpkx: return try TilePackageWriter(description: description, plan: plan).write(to: path, from: source, progress: report)
        case .mbtiles: return try MBTilesExportWriter(description: description, plan: plan).write(to: path, from: source, progress: report)
        }
    }
}

/// A backend's tile set as an export reads it.
struct StoreTileSource<Store: TileSetStore>: TileExportSource {
    let store: Store
    let set: String

    func tileSizes(level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>) throws -> [StoredTile] {
        try store.tileSizes(set: set, level: level, rows: rows, columns: columns)
    }

    func readTiles(
        level: Int, rows: ClosedRange<Int>, columns: ClosedRange<Int>, _ body: (StoredTile, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try store.readTiles(set: set, level: level, rows: rows, columns: columns, body)
    }
}
