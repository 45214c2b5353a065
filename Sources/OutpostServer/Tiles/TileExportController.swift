import Foundation
import Hummingbird
import Logging
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostWire

/// `exportTiles` and `estimateExportTilesSize` of tile services (offline-maps.md §3.2, §3.3;
/// docs/tiles.md, "Export"): geoprocessing-style jobs at `MapServer/exportTiles/jobs/<id>`
/// and `VectorTileServer/jobs/<id>`, whose package is listed in the job's output folder
/// (`/arcgis/rest/directories/arcgisoutput/<id>`) and expires like replica result files.
struct TileExportController<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let files: ResultFiles
    let runner: JobRunner
    /// Where clients reach this server: the origin of result and status URLs.
    let origin: ServerOrigin
    let maxExportTiles: Int
    /// Bytes of result files one user may hold before a new export is refused (0: none).
    let resultQuotaBytes: Int64
    let logger: Logger

    /// The output parameter every export job answers, as ArcGIS names it.
    static var resultParameter: String { "out_service_url" }

    func addRoutes(to routes: ArcGISRoutes) {
        for (kind, service) in [(TileSet.Kind.raster, "MapServer"), (.vector, "VectorTileServer")] {
            routes.viewers
                .read("\(service)/exportTiles") { r, c in try await submit(.exportTiles, of: kind, r, c) }
                .read("\(service)/exportTiles/jobs/:job", store: { _, c in try status(c, kind: kind) })
                .read("\(service)/exportTiles/jobs/:job/results/:parameter", store: { r, c in try result(r, c, kind: kind) })
        }
        routes.viewers
            .read("MapServer/estimateExportTilesSize") { r, c in try await submit(.estimateExportTilesSize, of: .raster, r, c) }
            .read("MapServer/estimateExportTilesSize/jobs/:job", store: { _, c in try status(c, kind: .raster) })
            .read("MapServer/estimateExportTilesSize/jobs/:job/results/:parameter", store: { r, c in try result(r, c, kind: .raster) })
            // A vector tile service's jobs sit under the service itself (§3.3).
            .read("VectorTileServer/jobs/:job", store: { _, c in try status(c, kind: .vector) })
            .read("VectorTileServer/jobs/:job/results/:parameter", store: { r, c in try result(r, c, kind: .vector) })
    }

    /// The output folders, below `/arcgis` beside the services directory.
    func addOutputRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes
            .read("rest/directories/arcgisoutput/:job", store: { r, c in try outputFolder(r, c) })
            .read("rest/directories/arcgisoutput/:job/:file") { r, c in try await download(r, c) }
    }

    // MARK: Submitting

    /// Plans the export now (a refusal is the answer, and no job is made), then runs it as a job.
    private func submit(_ jobKind: JobKind, of kind: TileSet.Kind, _ request: Request, _ c: OutpostRequestContext) async throws -> Response {
        let (store, files, maximum, quota, logger) = (self.store, self.files, maxExportTiles, resultQuotaBytes, self.logger)
        // Planning is bounded by the tile limit, but it is CPU: off the cooperative threads too.
        let export = try await StoreCall.run {
            files.sweep(ifDue: true, of: store, logger: logger)
            let set = try TileServicesController.tileSet(store, c, kind: kind)
            let export = try ExportTiles(
                backend: store, set: set, request: try TileExportRequest.parse(c.form.parameters, kind: kind), maximum: maximum)
            if jobKind == .exportTiles {
                try files.checkQuota(of: c.user?.name ?? "", quota: quota, registry: store.resultFiles)
            }
            return export
        }
        let job = try await export.submit(jobKind, files: files, owner: c.user?.name ?? "", runner: runner, caller: c.jobCaller)
        logger.info("job \(job.id): \(jobKind.rawValue) of \(export.set.name), \(export.plan.tileCount) tiles planned")
        return RESTResponse.json(["jobId": .string(job.id), "jobStatus": "esriJobSubmitted"], parameters: c.form.parameters)
    }

    // MARK: Status and results

    /// The job the path names, if it is an export of this service the caller may see.
    private func job(_ c: OutpostRequestContext, kind: TileSet.Kind) throws -> JobRecord {
        let set = try TileServicesController.tileSet(store, c, kind: kind)
        let id = c.parameters.get("job") ?? ""
        guard let job = try store.jobs.job(id: id), job.kind.isGeoprocessing, job.serviceName.lowercased() == set.name.lowercased(),
            c.mayManage(replicaOwner: job.owner)
        else {
            throw ArcGISError(kind: .notFound, message: "Job not found.", details: ["No job '\(id)' on service \(set.name)."])
        }
        return job
    }

    private func status(_ c: OutpostRequestContext, kind: TileSet.Kind) throws -> Response {
        RESTResponse.json(try job(c, kind: kind).geoprocessingStatus(resultParameter: Self.resultParameter).json, parameters: c.form.parameters)
    }

    /// `results/out_service_url`: the output folder's URL, or an estimate's value.
    private func result(_ request: Request, _ c: OutpostRequestContext, kind: TileSet.Kind) throws -> Response {
        let job = try job(c, kind: kind)
        guard c.parameters.get("parameter") == Self.resultParameter, job.status == .completed else {
            throw ArcGISError(
                kind: .notFound, message: "Result not found.", details: ["The job has no result '\(c.parameters.get("parameter") ?? "")' yet."])
        }
        let value = job.output ?? .string("\(origin.of(request))/arcgis/rest/directories/arcgisoutput/\(job.id)")
        return RESTResponse.json(GeoprocessingJobStatus.result(Self.resultParameter, value: value), parameters: c.form.parameters)
    }

    /// The completed export job of an output folder and its package file, if not expired.
    private func output(_ c: OutpostRequestContext) throws -> (job: JobRecord, file: String, name: String) {
        let id = c.parameters.get("job") ?? ""
        guard let job = try store.jobs.job(id: id), job.kind == .exportTiles, c.mayManage(replicaOwner: job.owner), let file = job.resultFile,
            files.exists(file)
        else {
            throw ArcGISError(
                kind: .notFound, message: "Output not found.",
                details: ["No export '\(id)', or its package expired (kept \(Int(files.idleTime)) s after its last download)."])
        }
        return (job, file, "\(job.serviceName.replacingOccurrences(of: "/", with: "_")).\((file as NSString).pathExtension)")
    }

    /// The package the download's path names: its result file, its name, and its published copy.
    private func package(_ c: OutpostRequestContext) throws -> (file: String, name: String, path: String) {
        let (_, file, name) = try output(c)
        guard c.parameters.get("file") == name, let path = files.open(file) else {
            throw ArcGISError(kind: .notFound, message: "Output not found.", details: ["The export's folder holds only \(name)."])
        }
        return (file, name, path)
    }

    private func outputFolder(_ request: Request, _ c: OutpostRequestContext) throws -> Response {
        let (job, _, name) = try output(c)
        let url = "\(origin.of(request))/arcgis/rest/directories/arcgisoutput/\(job.id)/\(name)"
        return RESTResponse.json(["files": [["name": .string(name), "url": .string(url)]], "folders": []], parameters: c.form.parameters)
    }

    private func download(_ request: Request, _ c: OutpostRequestContext) async throws -> Response {
        let (file, name, path) = try await StoreCall.run { [self] in try package(c) }
        var response = try await ResultFiles.response(serving: path, named: file, request: request, context: c)
        response.headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        return response
    }

}
