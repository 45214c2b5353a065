import Foundation
import OutpostGeoPackage
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostWire

/// The portal's publish job for an uploaded MBTiles file (docs/portal.md, "Publishing"): the
/// file rebuilt tile by tile (`UntrustedMBTiles`), then added as a tile set, which the tile
/// services serve as a `MapServer` (raster) or `VectorTileServer` (vector); the service's item
/// related to the file's (`Service2Data`).
public struct TilePublishWork<Backend: OutpostBackend>: Sendable {
    public let store: Backend
    /// The uploaded file, and its name as errors show it.
    public let path: String
    public let displayName: String
    public let serviceName: String
    public let description: String?
    /// The tiles the file said it holds (for progress) and where the rebuilt file is written.
    public let tileCount: Int
    public let scratchDirectory: String
    public let serviceItemId: String
    public let dataItemId: String

    public init(
        store: Backend, path: String, displayName: String, serviceName: String, description: String?, tileCount: Int,
        scratchDirectory: String, serviceItemId: String, dataItemId: String
    ) {
        self.store = store
        self.path = path
        self.displayName = displayName
        self.serviceName = serviceName
        self.description = description
        self.tileCount = tileCount
        self.scratchDirectory = scratchDirectory
        self.serviceItemId = serviceItemId
        self.dataItemId = dataItemId
    }

    /// Submits `job` (kind `.publish`) of `caller` to `runner`.
    public func submit(_ job: JobRecord, runner: JobRunner, caller: String) async throws {
        try await runner.submit(job, for: caller, in: store) { steps in try run(progress: steps.progress) }
    }

    /// The work, on the blocking pool: the rebuild reports 0–90 %, adding the set the rest.
    func run(progress: (JobProgress) -> Void) throws -> JobEvent {
        try FileManager.default.createDirectory(atPath: scratchDirectory, withIntermediateDirectories: true)
        let rebuilt = (scratchDirectory as NSString).appendingPathComponent("publish-\(UUID().uuidString).mbtiles")
        defer { try? FileManager.default.removeItem(atPath: rebuilt) }
        let total = max(tileCount, 1)
        let copied: Int
        do {
            copied = try UntrustedMBTiles.rebuild(path, to: rebuilt) { done in progress(JobProgress(done: min(90, done * 90 / total), total: 100)) }
        } catch {
            // A reason never shows where the server keeps the file (a deleted item's: "no file at …").
            let reason = error.reason.replacingOccurrences(of: path, with: displayName)
            throw StoreError.importFailed("\(displayName) cannot be published: \(reason).")
        }
        do {
            _ = try store.tiles.addTileSet(mbtiles: rebuilt, name: serviceName, description: description, styleResources: nil)
        } catch let failure as TileSetFailure {
            throw StoreError.importFailed("\(displayName) cannot be published: \(failure.description).")
        }
        try store.portal.addRelationship(ItemRelationship(origin: serviceItemId, destination: dataItemId, type: "Service2Data"))
        progress(JobProgress(done: 100, total: 100))
        return .answered(["tiles": .int(Int64(copied)), "warnings": .array([])])
    }
}
