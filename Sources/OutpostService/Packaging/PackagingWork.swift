import Foundation
import OutpostStorage
import OutpostSync
import OutpostWire

/// One OfflinePackaging job's work (docs/map-areas.md): CreateMapArea, SetupMapArea or
/// RefreshMapAreaPackage, with the inputs it was submitted with, acting as its caller.
public struct PackagingWork<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let files: ResultFiles
    /// `<scheme>://<host>` the request came to: the map's server-relative URLs are this server's.
    let server: String
    let maxExportTiles: Int
    let maxMapAreas: Int
    let caller: PortalCaller
    let user: ServerUser?
    /// The task's parameters as sent, by name.
    let inputs: [String: String]

    public init(
        backend: Backend, files: ResultFiles, server: String, maxExportTiles: Int, maxMapAreas: Int, caller: PortalCaller, user: ServerUser?,
        inputs: [String: String]
    ) {
        self.store = backend
        self.files = files
        self.server = server
        self.maxExportTiles = maxExportTiles
        self.maxMapAreas = maxMapAreas
        self.caller = caller
        self.user = user
        self.inputs = inputs
    }

    var packager: MapAreaPackager<Backend> {
        MapAreaPackager(store: store, files: files, server: server, maxExportTiles: maxExportTiles, caller: caller, user: user)
    }

    /// Runs the task `kind` as a job of `runner` for `caller` (whose share of the queue it
    /// takes), owned by `owner`; returns the job as submitted.
    public func submit(_ kind: JobKind, owner: String, runner: JobRunner, caller: String) async throws -> JobRecord {
        let job = JobRecord(
            id: JobRunner.newJobId(), serviceName: OfflinePackagingTasks.serviceName, kind: kind, replicaId: "", replicaName: "",
            submittedAt: store.clock.milliseconds(), owner: owner)
        try await runner.submit(job, for: caller, in: store) { steps in try run(kind, progress: steps.progress) }
        return job
    }

    /// The task's work, reporting the packages made; how the job ends.
    func run(_ kind: JobKind, progress: (JobProgress) -> Void) throws -> JobEvent {
        func json(_ name: String) -> JSONValue { inputs[name].flatMap { try? JSONParser.parse($0) } ?? .null }
        switch kind {
        case .createMapArea:
            let area = try MapAreas(backend: store, caller: caller, limit: maxMapAreas).create(
                mapItemId: inputs["mapItemId"] ?? "", areaType: inputs["areaType"], area: inputs["area"], extent: inputs["extent"],
                bookmark: inputs["bookmark"], outputName: json("outputName"))
            return .answered(.string(area.id))
        case .setupMapArea:
            let tiles = (json("tileServices").arrayValue ?? []).compactMap { entry -> TilePackagePlan? in
                guard let url = entry["url"]?.stringValue else { return nil }
                let service = PackagePlanner.serviceURL(url)
                return TilePackagePlan(
                    serviceURL: service, kind: service.hasSuffix("/VectorTileServer") ? .vector : .raster,
                    levels: entry["levels"]?.stringValue ?? entry["levels"]?.arrayValue?.map { $0.jsonText }.joined(separator: ","))
            }
            let packages = try packager.setup(
                areaId: inputs["mapAreaItemId"] ?? "", ignore: (json("mapLayersToIgnore").arrayValue ?? []).compactMap(\.stringValue),
                tileServices: tiles, featureServices: PackagePlanner.FeatureOverride.parse(json("featureServices")), progress: progress)
            return .answered(packages)
        default:
            let ids = (json("packages").arrayValue ?? []).compactMap { $0["itemId"]?.stringValue ?? $0.stringValue }
            guard !ids.isEmpty else { throw PackagingError.invalid("packages", "Give [{\"itemId\": …}].") }
            return .answered(packager.refresh(packages: ids, progress: progress))
        }
    }
}
