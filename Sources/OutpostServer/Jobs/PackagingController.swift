import Foundation
import Hummingbird
import OutpostService
import OutpostStorage
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
        let work = PackagingWork(
            backend: store, files: files, server: origin.of(request), maxExportTiles: maxExportTiles, maxMapAreas: maxMapAreas,
            caller: PortalCaller(user: c.user, securityOn: requireAuth), user: c.user, inputs: inputs)
        let job = try await work.submit(kind, owner: c.user?.name ?? "", runner: runner, caller: c.jobCaller)
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
