import Foundation
import Hummingbird
import OutpostDataTools
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostWire

/// The portal's `publish` (docs/portal.md, "Publishing"): a file item of the caller's
/// (zipped Shapefile, zipped File Geodatabase, CSV, GeoJSON, GeoPackage, KML) becomes a
/// feature service through the CLI's import, as a job. The answer names the service, its
/// item and the job at once; `content/users/<user>/items/<serviceItemId>/status?jobType=publish`
/// follows it. Everything that can be refused is refused before the job starts.
struct PublishingController<Backend: OutpostBackend>: Sendable {
    let portal: PortalController<Backend>
    let runner: JobRunner
    /// GDAL's longest run for one upload: an archive that unpacks slowly fails, not stalls a slot.
    var timeLimit: Duration = .seconds(600)
    /// Where GDAL writes its GeoPackage on the way in.
    let scratchDirectory: String

    var store: Backend { portal.store }

    func addRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        // The ArcGIS API for Python adds the item's folder to the path.
        for owner in ["content/users/:user", "content/users/:user/:folder"] {
            routes.change(RouterPath(owner + "/publish")) { request, c in try await publish(request, c) }
        }
    }

    private func publish(_ request: Request, _ c: OutpostRequestContext) async throws -> Response {
        let (work, job, size) = try await StoreCall.run { try prepare(c) }
        try await work.submit(job, runner: runner, caller: c.jobCaller)
        let url = portal.server(request) + "/arcgis/rest/services/\(job.serviceName)/FeatureServer"
        let service: JSONObject = [
            "type": "Feature Service", "serviceurl": .string(url), "encodedServiceURL": .string(url), "jobId": .string(job.id),
            "serviceItemId": .string(job.replicaId), "size": .int(size),
        ]
        return RESTResponse.json(["services": [.object(service)]], parameters: c.form.parameters)
    }

    /// What a publish will do, checked: the caller's file item, its type, the new name; the
    /// job's record.
    private func prepare(_ c: OutpostRequestContext) throws -> (work: PublishWork<Backend>, job: JobRecord, size: Int64) {
        let p = c.form.parameters
        guard let itemId = p.string("itemID") ?? p.string("itemId"), !itemId.isEmpty else { throw ArcGISError.missingParameter("itemID") }
        // As any change of an item: one the caller may not see is not found, then not theirs forbidden.
        let item = try portal.changeableItem(id: itemId, c)
        guard portal.caller(c).mayCreate(for: try portal.pathUser(c)) else { throw ArcGISError.forbidden }
        guard let filetype = p.string("filetype") else { throw ArcGISError.missingParameter("filetype") }
        guard let format = PublishFileType(filetype: filetype) else {
            throw ArcGISError.invalidParameter(
                "filetype", "'\(filetype)' cannot be published here; use one of \(PublishFileType.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        guard item.type.caseInsensitiveCompare(format.itemType) == .orderedSame else {
            throw ArcGISError.invalidParameter("filetype", "The item is a \(item.type), not a \(format.itemType).")
        }
        guard case .file(let fileName, let path)? = try store.portal.data(of: item.id) else {
            throw ArcGISError.invalidParameter("itemID", "The item has no file to publish.")
        }
        let parameters = try p.json("publishParameters")?.objectValue ?? [:]
        let name = parameters["name"]?.stringValue ?? Self.serviceName(fromTitle: item.title)
        guard ServiceDefinition.isValidName(name), !name.contains("/") else {
            throw ArcGISError.invalidParameter("publishParameters", "'\(name)' is not a service name: use letters, digits, '_' and '-'.")
        }
        if try store.catalog().services.contains(where: { $0.definition.name.caseInsensitiveCompare(name) == .orderedSame }) {
            throw StoreError.serviceExists(name)
        }
        let source = try UploadedSource(path: path, format: format)
        var options = FeatureImportOptions(serviceName: name)
        options.description = item.snippet
        options.scratchDirectory = scratchDirectory
        if let count = parameters["maxRecordCount"]?.int64Value, count > 0 { options.maxRecordCount = Int(min(count, 100_000)) }
        if let wkid = parameters["targetSR"]?["wkid"]?.int64Value { options.srs = Int(wkid) }
        if let capabilities = parameters["layerInfo"]?["capabilities"]?.stringValue {
            options.capabilities = Self.capabilities(capabilities)
        }
        let job = JobRecord(
            id: JobRunner.newJobId(), serviceName: name, kind: .publish, replicaId: ServiceItems.id(forService: name), replicaName: item.id,
            submittedAt: store.clock.milliseconds(), owner: c.user?.name ?? "")
        let work = PublishWork(
            store: store, source: source, displayName: fileName, options: options, timeLimit: timeLimit, serviceItemId: job.replicaId,
            dataItemId: item.id)
        return (work, job, item.size)
    }

    /// `layerInfo.capabilities` ("Query", "Create,Update,Query"…) as the service's: the known
    /// ones, Query always (ArcGIS's clients ask a Query-only service of static data).
    static func capabilities(_ text: String) -> [String] {
        let asked = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        let known = ServiceDefinition.defaultCapabilities.filter { asked.contains($0.lowercased()) }
        return known.contains("Query") ? known : ["Query"] + known
    }

    /// A name from an item's title: its letters, digits, `_` and `-`, spaces as `_`.
    static func serviceName(fromTitle title: String) -> String {
        let kept = title.map { $0 == " " ? "_" : $0 }.filter { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == "-" }
        return kept.isEmpty ? "Published" : String(kept.prefix(100))
    }
}
