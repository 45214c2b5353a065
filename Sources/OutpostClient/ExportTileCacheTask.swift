import Foundation
import OutpostWire

/// What `exportTiles` is asked for: the levels, the area, the package format.
public struct ExportTileCacheParameters: Sendable, Codable, Equatable {
    /// Level ids to export (`exportBy=LevelID`).
    public var levelIDs: [Int]
    /// The area (`exportExtent`), in its spatial reference.
    public var areaOfInterest: Envelope?
    public var areaSpatialReference: SpatialReference
    /// `tpkx` (raster default) or `MBTiles` (vector tiles always).
    public var storageFormat: String?

    public init(levelIDs: [Int], areaOfInterest: Envelope?, areaSpatialReference: SpatialReference = .wgs84, storageFormat: String? = nil) {
        self.levelIDs = levelIDs
        self.areaOfInterest = areaOfInterest
        self.areaSpatialReference = areaSpatialReference
        self.storageFormat = storageFormat
    }

    /// The `exportTiles` form (the job answers asynchronously; a package is made).
    var formFields: [(String, String)] {
        var fields: [(String, String)] = [
            ("exportBy", "LevelID"), ("levels", levelIDs.map(String.init).joined(separator: ",")), ("tilePackage", "true"),
        ]
        if let area = areaOfInterest {
            let extent: JSONValue = [
                "xmin": .double(area.xmin), "ymin": .double(area.ymin), "xmax": .double(area.xmax), "ymax": .double(area.ymax),
                "spatialReference": ["wkid": .int(Int64(areaSpatialReference.wkid))],
            ]
            fields.append(("exportExtent", extent.jsonText))
        }
        if let storageFormat { fields.append(("storageFormat", storageFormat)) }
        return fields
    }

    /// The levels whose scale lies in the range: `minScale` the most zoomed-out scale shown
    /// (a larger number), `maxScale` the most zoomed-in; 0 leaves that side open. The service's
    /// own range bounds it too (0 again meaning none), as the ArcGIS Maps SDKs do.
    public static func levels(
        of lods: [(level: Int, scale: Double)], minScale: Double, maxScale: Double, serviceMinScale: Double = 0, serviceMaxScale: Double = 0
    ) -> [Int] {
        func within(_ scale: Double, _ minimum: Double, _ maximum: Double) -> Bool {
            // Half a percent of slack: scales written with fewer digits still match their level.
            (minimum == 0 || scale <= minimum * 1.005) && (maximum == 0 || scale >= maximum * 0.995)
        }
        return lods.filter { within($0.scale, minScale, maxScale) && within($0.scale, serviceMinScale, serviceMaxScale) }.map(\.level).sorted()
    }
}

/// A tile package on the device.
public struct TileCache: Sendable, Equatable {
    public var fileURL: URL
}

/// `ExportTileCacheJob`'s output is the downloaded package.
public typealias ExportTileCacheJob = Job<TileCache>

/// Tiles of a MapServer or VectorTileServer taken offline, after the ArcGIS Maps SDKs'
/// `ExportTileCacheTask` / `ExportVectorTilesTask`: the server's `exportTiles` job, polled,
/// its package downloaded in ranges (a `.tpkx` for raster tiles, MBTiles for vector tiles).
public final class ExportTileCacheTask: Sendable {
    public let connection: ServiceConnection

    public init(url: URL, token: String? = nil, retryWindow: Duration = .seconds(600), transport: (any HTTPTransport)? = nil) {
        connection = ServiceConnection(serviceURL: url, token: token, retryWindow: retryWindow, transport: transport)
    }

    public var isVectorTiles: Bool { connection.serviceURL.path.hasSuffix("/VectorTileServer") }

    /// The levels of detail the service has (level, scale), and whether it exports tiles.
    public func load() async throws -> (lods: [(level: Int, scale: Double)], exportAllowed: Bool, minScale: Double, maxScale: Double) {
        let json = try await connection.getJSON(connection.serviceURL)
        let lods = (json["tileInfo"]?["lods"]?.arrayValue ?? []).compactMap { lod -> (level: Int, scale: Double)? in
            guard let level = lod["level"]?.int64Value, let scale = lod["scale"]?.doubleValue else { return nil }
            return (Int(level), scale)
        }
        let allowed = json["exportTilesAllowed"]?.boolValue ?? isVectorTiles
        return (lods, allowed, json["minScale"]?.doubleValue ?? 0, json["maxScale"]?.doubleValue ?? 0)
    }

    /// The area's tiles from `minScale` to `maxScale` (0: every level on that side).
    public func makeDefaultExportTileCacheParameters(
        areaOfInterest: Envelope, spatialReference: SpatialReference = .wgs84, minScale: Double = 0, maxScale: Double = 0
    ) async throws -> ExportTileCacheParameters {
        let service = try await load()
        guard service.exportAllowed else { throw ClientError.unsupported("\(connection.serviceURL) does not allow exporting tiles") }
        let levels = ExportTileCacheParameters.levels(
            of: service.lods, minScale: minScale, maxScale: maxScale, serviceMinScale: service.minScale, serviceMaxScale: service.maxScale)
        guard !levels.isEmpty else { throw ClientError.unsupported("no level of \(connection.serviceURL) lies between the scales asked") }
        return ExportTileCacheParameters(
            levelIDs: levels, areaOfInterest: areaOfInterest, areaSpatialReference: spatialReference, storageFormat: isVectorTiles ? "MBTiles" : nil)
    }

    /// A job that exports the tiles and downloads the package to `downloadFileURL` (which must not exist).
    public func makeExportTileCacheJob(parameters: ExportTileCacheParameters, downloadFileURL: URL) -> ExportTileCacheJob {
        let document = JobDocument(
            id: GeodatabaseSyncTask.newJobId(), kind: .exportTiles, serviceURL: connection.serviceURL.absoluteString, path: downloadFileURL.path,
            exportTiles: parameters)
        return ExportTileCacheJob(engine: JobEngine(document: document, connection: connection), output: ExportTileCacheJob.tileCache)
    }
}

extension Job where Output == TileCache {
    /// An export job restored from `toJSON` (paused).
    public static func fromJSON(
        _ data: Data, token: String? = nil, retryWindow: Duration = .seconds(600), transport: (any HTTPTransport)? = nil
    ) throws -> ExportTileCacheJob {
        try restored(data, kind: .exportTiles, token: token, retryWindow: retryWindow, transport: transport, output: tileCache)
    }

    @Sendable static func tileCache(_ document: JobDocument) throws -> TileCache { TileCache(fileURL: URL(fileURLWithPath: document.path)) }
}
