import Foundation
import Hummingbird
import OutpostStorage
import OutpostWire

/// Tiled map services (`MapServer`, one fused cache) and vector tile services
/// (`VectorTileServer`) over the store's tile sets (docs/tiles.md). Tiles are answered with
/// an ETag and long-lived cache headers: a set never changes after import.
struct TileServicesController<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let cache: TileCache
    /// The most tiles one export may take (`maxExportTilesCount`).
    let maxExportTiles: Int

    func addRoutes(to routes: ArcGISRoutes) {
        routes.viewers
            .read("MapServer", store: { _, c in try info(c, kind: .raster) })
            .read("MapServer/tile/:level/:row/:col") { request, c in try await tile(request, c, kind: .raster) }
            .read("MapServer/tilemap/:level/:row/:col/:width/:height", store: { _, c in try tileMap(c, kind: .raster) })
            .read("VectorTileServer", store: { _, c in try info(c, kind: .vector) })
            .read("VectorTileServer/tile/:level/:row/:col") { request, c in try await tile(request, c, kind: .vector) }
            .read("VectorTileServer/tilemap/:level/:row/:col/:width/:height", store: { _, c in try tileMap(c, kind: .vector) })
            .read("VectorTileServer/resources/styles", store: { _, c in try style(c) })
            .read("VectorTileServer/resources/styles/root.json", store: { _, c in try style(c) })
            .read("VectorTileServer/resources/sprites/:file", store: { _, c in try styleResource(c, "sprites", c.parameters.get("file")) })
            .read(
                "VectorTileServer/resources/fonts/:stack/:range",
                store: { _, c in try styleResource(c, "fonts", c.parameters.get("stack"), c.parameters.get("range")) })
    }

    /// The set the path names, of the service kind the path says.
    func tileSet(_ c: OutpostRequestContext, kind: TileSet.Kind) throws -> TileSet { try Self.tileSet(store, c, kind: kind) }

    static func tileSet(_ store: Backend, _ c: OutpostRequestContext, kind: TileSet.Kind) throws -> TileSet {
        let name = try c.serviceName()
        guard let set = try store.tiles.tileSet(named: name), set.kind == kind else {
            throw ArcGISError(kind: .notFound, message: "Service not found.", details: ["There is no \(kind.serviceKind) '\(name)'."])
        }
        return set
    }

    private func info(_ c: OutpostRequestContext, kind: TileSet.Kind) throws -> Response {
        let set = try tileSet(c, kind: kind)
        let version = FeatureServiceMetadata.currentVersion
        let json =
            kind == .raster
            ? TileServiceInfo.mapServer(set, currentVersion: version, maxExportTilesCount: maxExportTiles)
            : TileServiceInfo.vectorTileServer(set, currentVersion: version, maxExportTilesCount: maxExportTiles)
        return RESTResponse.json(json, parameters: c.form.parameters)
    }

    /// The style given at import, pointed at this service and its resources; else one
    /// drawing every layer.
    private func style(_ c: OutpostRequestContext) throws -> Response {
        let set = try tileSet(c, kind: .vector)
        guard let given = try store.tiles.styleResource(set: set.name, path: "styles/root.json"),
            let style = try? JSONParser.parse(String(decoding: given, as: UTF8.self))
        else { return RESTResponse.json(TileServiceInfo.defaultStyle(set), parameters: c.form.parameters) }
        let hasSprites = try store.tiles.styleResource(set: set.name, path: "sprites/sprite.json") != nil
        let glyphs = style["glyphs"] != nil
        return RESTResponse.json(StyleResources.servedStyle(style, hasSprites: hasSprites, hasFonts: glyphs), parameters: c.form.parameters)
    }

    /// A sprite or glyph range given with the style; a plain 404 when there is none (as for tiles).
    private func styleResource(_ c: OutpostRequestContext, _ folder: String, _ parts: String?...) throws -> Response {
        let set = try tileSet(c, kind: .vector)
        // Path parameters arrive percent-encoded (font stacks have spaces).
        let path = ([folder] + parts.map { FormURLEncoding.percentDecode($0 ?? "") }).joined(separator: "/")
        guard let bytes = try store.tiles.styleResource(set: set.name, path: path) else {
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "Not found.")))
        }
        return Response(
            status: .ok, headers: [.contentType: StyleResources.contentType(path), .cacheControl: "public, max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A tile's bytes; 304 when the client has them, 404 (a plain status, as image clients
    /// expect) when the set has no such tile.
    private func tile(_ request: Request, _ c: OutpostRequestContext, kind: TileSet.Kind) async throws -> Response {
        let address = try address(c)
        let (level, row, column) = (address.level, address.row, address.column)
        // Set and tile from memory when seen before; otherwise from the store, on the blocking pool.
        let name = try c.serviceName()
        let set: TileSet
        if let known = cache.set(named: name), known.kind == kind {
            set = known
        } else {
            let read = cache.beginRead()
            set = try await StoreCall.run { try tileSet(c, kind: kind) }
            cache.remember(set, from: read)
        }
        let key = TileCache.Key(set: set.name, version: set.created, level: level, row: row, column: column)
        var bytes = cache.tile(key)
        if bytes == nil, set.contains(level: level, row: row, column: column) {
            bytes = try await StoreCall.run { try store.tiles.tile(set: set.name, level: level, row: row, column: column) }.map {
                ByteBuffer(bytes: $0)
            }
            if let bytes { cache.store(bytes, for: key) }
        }
        guard let bytes else {
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "Tile not found.")))
        }
        return TileAnswer(set: set, level: level, row: row, column: column, bytes: bytes, ifNoneMatch: request.headers[.ifNoneMatch]).response
    }

    /// `tilemap/{level}/{row}/{column}/{width}/{height}`: which tiles of a block exist.
    private func tileMap(_ c: OutpostRequestContext, kind: TileSet.Kind) throws -> Response {
        let set = try tileSet(c, kind: kind)
        let tile = try address(c)
        guard let width = c.parameters.get("width").flatMap(Int.init), let height = c.parameters.get("height").flatMap(Int.init),
            tile.block(width: width, height: height) != nil
        else { throw ArcGISError.invalidParameter("width/height", "1 to 256 tiles") }
        let (row, column) = (tile.row, tile.column)
        let grid = try store.tiles.tilesPresent(set: set.name, level: tile.level, row: row, column: column, height: height, width: width)
        return RESTResponse.json(
            [
                "adjusted": false,
                "location": ["left": .int(Int64(column)), "top": .int(Int64(row)), "width": .int(Int64(width)), "height": .int(Int64(height))],
                "data": .array(grid.flatMap { $0.map { .int($0 ? 1 : 0) } }),
            ], parameters: c.form.parameters)
    }

    /// Level, row and column of the path (a vector tile's column ends in `.pbf`), inside the
    /// level's grid: nothing counts with an address before this.
    private func address(_ c: OutpostRequestContext) throws -> TileAddress {
        guard
            let address = TileAddress.parse(
                level: c.parameters.get("level") ?? "", row: c.parameters.get("row") ?? "", column: c.parameters.get("col") ?? "")
        else {
            throw ArcGISError(kind: .notFound, message: "Tile not found.", details: ["The tile address is not a level/row/column of the tiling."])
        }
        return address
    }
}
