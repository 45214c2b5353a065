import Foundation
import Hummingbird
import OutpostDataTools
import OutpostGeoPackage
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostWire

/// The portal's `publish` (docs/portal.md, "Publishing"): a file item of the caller's
/// (zipped Shapefile, zipped File Geodatabase, CSV, GeoJSON, GeoPackage, KML) becomes a
/// feature service through the CLI's import, as a job; an MBTiles file becomes a tile service. The answer names the service, its
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
        routes.read("content/features/analyze", store: { _, c in RESTResponse.json(try analyze(c), parameters: c.form.parameters) })
        routes.read(
            "portals/:portal/isServiceNameAvailable", store: { _, c in RESTResponse.json(try nameAvailable(c), parameters: c.form.parameters) })
    }

    private func publish(_ request: Request, _ c: OutpostRequestContext) async throws -> Response {
        let plan = try await StoreCall.run {
            let plan = try prepare(c)
            // The name, and the file item, are the job's until it ends (`PublishesInFlight`).
            let claim = try portal.publishes.claim(
                jobId: plan.job.id, itemId: plan.job.replicaName, name: plan.job.serviceName,
                isTaken: { try serviceNameStored(plan.job.serviceName) }, jobs: store.jobs)
            let changing = ArcGISError(
                kind: .conflict, message: "Unable to publish item. It is being deleted or given a new file.",
                details: ["Try again once that change has ended."])
            switch claim {
            case .claimed:
                // A change may have held, changed and released the item between `prepare`
                // and the claim; once claimed, none can hold it, so this second look is final.
                let unchanged: Bool
                do { unchanged = try store.portal.item(id: plan.job.replicaName)?.modified == plan.itemModified } catch {
                    portal.publishes.remove(jobId: plan.job.id)
                    throw error
                }
                guard unchanged else {
                    portal.publishes.remove(jobId: plan.job.id)
                    throw changing
                }
                return plan
            case .nameTaken: throw StoreError.serviceExists(plan.job.serviceName)
            case .itemChanging: throw changing
            }
        }
        do {
            switch plan.work {
            case .features(let work): try await work.submit(plan.job, runner: runner, caller: c.jobCaller)
            case .tiles(let work): try await work.submit(plan.job, runner: runner, caller: c.jobCaller)
            }
        } catch {
            portal.publishes.remove(jobId: plan.job.id)
            throw error
        }
        let url = portal.server(request) + "/arcgis/rest/services/\(plan.job.serviceName)/\(plan.serviceKind)"
        let service: JSONObject = [
            "type": .string(plan.serviceType), "serviceurl": .string(url), "encodedServiceURL": .string(url), "jobId": .string(plan.job.id),
            "serviceItemId": .string(plan.job.replicaId), "size": .int(plan.size),
        ]
        return RESTResponse.json(["services": [.object(service)]], parameters: c.form.parameters)
    }

    /// What a publish will do, checked: the caller's file item, its type, the new name; the
    /// job's record.
    private func prepare(_ c: OutpostRequestContext) throws -> PublishPlan<Backend> {
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
        guard try !serviceNameTaken(name) else { throw StoreError.serviceExists(name) }
        if format.isTiles {
            return try prepareTiles(item: item, fileName: fileName, path: path, name: name, c)
        }
        let source = try UploadedSource(path: path, format: format)
        var options = FeatureImportOptions(serviceName: name)
        options.description = item.snippet
        options.scratchDirectory = scratchDirectory
        if let count = parameters["maxRecordCount"]?.int64Value, count > 0 { options.maxRecordCount = Int(min(count, 100_000)) }
        if let wkid = parameters["targetSR"]?["wkid"]?.int64Value { options.srs = Int(wkid) }
        if format == .csv, let longitude = parameters["longitudeFieldName"]?.stringValue,
            let latitude = parameters["latitudeFieldName"]?.stringValue
        {
            // GDAL takes a list of names, `*` as a wildcard: one plain name each.
            for (name, value) in [("longitudeFieldName", longitude), ("latitudeFieldName", latitude)]
            where value.isEmpty || value.count > 128 || value.contains(where: { $0 == "," || $0 == "*" || $0.isNewline || $0 == "\0" }) {
                throw ArcGISError.invalidParameter("publishParameters", "\(name) '\(value.prefix(40))' is not a column name.")
            }
            options.csvCoordinates = (longitude, latitude)
        }
        if let capabilities = parameters["layerInfo"]?["capabilities"]?.stringValue {
            options.capabilities = Self.capabilities(capabilities)
        }
        let job = JobRecord(
            id: JobRunner.newJobId(), serviceName: name, kind: .publish, replicaId: ServiceItems.id(forService: name), replicaName: item.id,
            submittedAt: store.clock.milliseconds(), owner: c.user?.name ?? "")
        let work = PublishWork(
            store: store, source: source, displayName: fileName, options: options, timeLimit: timeLimit, serviceItemId: job.replicaId,
            dataItemId: item.id)
        return PublishPlan(
            work: .features(work), job: job, size: item.size, serviceKind: "FeatureServer", serviceType: "Feature Service",
            itemModified: item.modified)
    }

    /// An MBTiles file's publish: its metadata and tile count read defensively now (the
    /// service's kind follows its format), the tiles rebuilt by the job.
    private func prepareTiles(
        item: PortalItem, fileName: String, path: String, name: String, _ c: OutpostRequestContext
    ) throws -> PublishPlan<Backend> {
        let summary: UntrustedMBTiles.Summary
        do { summary = try UntrustedMBTiles.summary(of: path) } catch {
            throw StoreError.importFailed("\(fileName) cannot be published: \(error.reason.replacingOccurrences(of: path, with: fileName)).")
        }
        let kind: TileSet.Kind = summary.format == "pbf" ? .vector : .raster
        let job = JobRecord(
            id: JobRunner.newJobId(), serviceName: name, kind: .publish, replicaId: ServiceItems.id(forService: "\(kind.serviceKind):\(name)"),
            replicaName: item.id, submittedAt: store.clock.milliseconds(), owner: c.user?.name ?? "")
        let work = TilePublishWork(
            store: store, path: path, displayName: fileName, serviceName: name, description: item.snippet, tileCount: summary.tileCount,
            scratchDirectory: scratchDirectory, serviceItemId: job.replicaId, dataItemId: item.id)
        return PublishPlan(
            work: .tiles(work), job: job, size: item.size, serviceKind: kind.serviceKind,
            serviceType: kind == .raster ? "Map Service" : "Vector Tile Service", itemModified: item.modified)
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

/// A checked publish: the work, its job's record, the file's size and the service it makes.
struct PublishPlan<Backend: OutpostBackend>: Sendable {
    enum Work: Sendable {
        case features(PublishWork<Backend>)
        case tiles(TilePublishWork<Backend>)
    }

    let work: Work
    let job: JobRecord
    let size: Int64
    let serviceKind: String
    let serviceType: String
    /// The file item's `modified` as the plan read it.
    let itemModified: Int64
}
