import Foundation
import Hummingbird
import Logging
import OutpostService
import OutpostStorage
import OutpostStore
import OutpostSync
import OutpostWire

/// The OfflinePackaging geoprocessing service at `/arcgis/rest/services/System/OfflinePackaging/GPServer`,
/// where `portals/self` points (docs/map-areas.md): its metadata and its tasks' (Appendix B),
/// `submitJob`, and the jobs' status and results in the geoprocessing form.
struct PackagingController<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let files: ResultFiles
    let runner: JobRunner
    /// Where clients reach this server, as the URLs it writes name it.
    let origin: ServerOrigin
    let requireAuth: Bool
    let maxExportTiles: Int
    let maxMapAreas: Int
    let logger: Logger

    static var kinds: [String: JobKind] {
        [
            "CreateMapArea": .createMapArea, "SetupMapArea": .setupMapArea, "RefreshMapAreaPackage": .refreshMapAreaPackage,
        ]
    }

    func addRoutes(to routes: ArcGISRoutes) {
        routes.viewers
            .read("GPServer") { _, c in
                try Self.checkService(c)
                return RESTResponse.json(
                    OfflinePackagingTasks.service(currentVersion: FeatureServiceMetadata.currentVersion), parameters: c.form.parameters)
            }
            .read("GPServer/:task") { _, c in RESTResponse.json(try Self.task(c).metadata, parameters: c.form.parameters) }
            .read("GPServer/:task/jobs/:job", store: { _, c in try status(c) })
            .read("GPServer/:task/jobs/:job/results/:parameter", store: { _, c in try result(c) })
        routes.editors.change("GPServer/:task/submitJob") { r, c in try await submit(r, c) }
    }

    /// The only geoprocessing service is the packaging one.
    static func checkService(_ c: OutpostRequestContext) throws {
        let name = try c.serviceName()
        guard name.caseInsensitiveCompare(OfflinePackagingTasks.serviceName) == .orderedSame else {
            throw ArcGISError(kind: .notFound, message: "Service not found.", details: ["There is no GPServer '\(name)'."])
        }
    }

    static func task(_ c: OutpostRequestContext) throws -> (name: String, kind: JobKind, metadata: JSONValue) {
        try checkService(c)
        let name = c.parameters.get("task") ?? ""
        guard let metadata = OfflinePackagingTasks.task(name), let kind = kinds[name] else {
            throw ArcGISError(kind: .notFound, message: "Task not found.", details: ["OfflinePackaging has no task '\(name)'."])
        }
        return (name, kind, metadata)
    }

    // MARK: Jobs

    private func submit(_ request: Request, _ c: OutpostRequestContext) async throws -> Response {
        let (_, kind, _) = try Self.task(c)
        let p = c.form.parameters
        let inputs = Dictionary(
            uniqueKeysWithValues: [
                "mapItemId", "bookmark", "extent", "areaType", "area", "outputName", "mapAreaItemId", "mapLayersToIgnore",
                "tileServices", "featureServices", "packages",
            ]
            .compactMap { name in p.string(name).map { (name, $0) } })
        let job = JobRecord(
            id: "j" + GlobalID.make().filter(\.isHexDigit).lowercased(), serviceName: OfflinePackagingTasks.serviceName, kind: kind, replicaId: "",
            replicaName: "", submittedAt: store.clock.milliseconds(), owner: c.user?.name ?? "")
        let ticket = try runner.admit(caller: c.jobCaller)
        let store = self.store
        do {
            try await StoreCall.run { try store.jobs.saveJob(job) }
        } catch {
            runner.cancel(ticket)
            throw error
        }
        let work = PackagingWork(
            store: store, files: files, server: origin.of(request), maxExportTiles: maxExportTiles,
            maxMapAreas: maxMapAreas,
            caller: PortalCaller(user: c.user, securityOn: requireAuth), user: c.user, inputs: inputs)
        let logger = self.logger
        runner.submit(ticket) {
            let last = try? await JobRunner.blocking {
                JobRun(backend: store).perform(job, saveFailed: { record, error in logger.error("job \(record.id): cannot save status: \(error)") }) {
                    steps in try work.run(job.kind, progress: steps.progress)
                }
            }
            if let last, last.status == .failed { logger.warning("job \(job.id) (\(job.kind.rawValue)) failed: \(last.error?.message ?? "")") }
        }
        return RESTResponse.json(["jobId": .string(job.id), "jobStatus": "esriJobSubmitted"], parameters: p)
    }

    private func job(_ c: OutpostRequestContext) throws -> (task: String, job: JobRecord) {
        let (name, kind, _) = try Self.task(c)
        let id = c.parameters.get("job") ?? ""
        guard let job = try store.jobs.job(id: id), job.kind == kind, c.mayManage(replicaOwner: job.owner) else {
            throw ArcGISError(kind: .notFound, message: "Job not found.", details: ["No job '\(id)' of \(name)."])
        }
        return (name, job)
    }

    private func status(_ c: OutpostRequestContext) throws -> Response {
        let (task, job) = try job(c)
        let output = OfflinePackagingTasks.outputName(of: task) ?? "result"
        return RESTResponse.json(job.geoprocessingStatus(resultParameter: output).json, parameters: c.form.parameters)
    }

    private func result(_ c: OutpostRequestContext) throws -> Response {
        let (task, job) = try job(c)
        let output = OfflinePackagingTasks.outputName(of: task) ?? "result"
        guard c.parameters.get("parameter") == output, job.status == .completed, let value = job.output else {
            throw ArcGISError(
                kind: .notFound, message: "Result not found.", details: ["The job has no result '\(c.parameters.get("parameter") ?? "")' yet."])
        }
        return RESTResponse.json(GeoprocessingJobStatus.result(output, value: value), parameters: c.form.parameters)
    }
}

/// One packaging job's work, with the inputs it was submitted with.
struct PackagingWork<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let files: ResultFiles
    let server: String
    let maxExportTiles: Int
    let maxMapAreas: Int
    let caller: PortalCaller
    let user: ServerUser?
    let inputs: [String: String]

    var packager: MapAreaPackager<Backend> {
        MapAreaPackager(store: store, files: files, server: server, maxExportTiles: maxExportTiles, caller: caller, user: user)
    }

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
