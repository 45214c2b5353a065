import Foundation
import OutpostWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A map author's side of preplanned map areas, against any portal whose `portals/self`
/// names an OfflinePackaging service (Outpost's or ArcGIS's): the requests the ArcGIS API for
/// Python's `offline_areas` sends (offline-maps.md §2.4; docs/map-areas.md).
public struct MapAreaClient: Sendable {
    /// `…/arcgis` (the portal is `…/arcgis/sharing/rest`).
    public let base: URL
    let connection: ServiceConnection

    public init(base: URL, token: String? = nil, retryWindow: Duration = .seconds(60), transport: (any HTTPTransport)? = nil) {
        self.base = base
        connection = ServiceConnection(serviceURL: base, token: token, retryWindow: retryWindow, transport: transport)
    }

    public struct Area: Sendable, Equatable {
        public var id: String
        public var title: String
        /// `processing`, `complete` or `failed`.
        public var status: String
    }

    func portal(_ path: String) -> URL { base.appendingPathComponent("sharing/rest/" + path) }

    func checked(_ json: JSONValue) throws -> JSONValue {
        if let error = json["error"] {
            throw ClientError.invalidResponse("\(error["message"]?.stringValue ?? "error") \(error["details"]?.jsonText ?? "")")
        }
        return json
    }

    /// The web map's areas (`Map2Area`).
    public func areas(of webMap: String) async throws -> [Area] {
        let related = try checked(
            try await connection.getJSON(
                portal("content/items/\(webMap)/relatedItems"), [("relationshipTypes", "Map2Area"), ("direction", "forward")]))
        return (related["relatedItems"]?.arrayValue ?? []).compactMap { item in
            guard let id = item["id"]?.stringValue else { return nil }
            return Area(id: id, title: item["title"]?.stringValue ?? "", status: item["properties"]?["status"]?.stringValue ?? "")
        }
    }

    /// CreateMapArea for an envelope, then SetupMapArea; returns the area's id and its packages.
    /// With `updatesKeptDays`, every feature service of the map keeps scheduled-update deltas
    /// that many days (`createPkgDeltas.maxDeltaAge`, as the Python API's `enable_updates`).
    public func create(
        webMap: String, extent: Envelope, wkid: Int = 4326, title: String, refreshSchedule: String? = nil, updatesKeptDays: Int? = nil
    ) async throws -> (area: String, packages: JSONValue) {
        var outputName: JSONObject = ["title": .string(title)]
        if let refreshSchedule { outputName["packageRefreshSchedule"] = .string(refreshSchedule) }
        let area: JSONValue = [
            "xmin": .double(extent.xmin), "ymin": .double(extent.ymin), "xmax": .double(extent.xmax), "ymax": .double(extent.ymax),
            "spatialReference": ["wkid": .int(Int64(wkid))],
        ]
        let created = try await run(
            "CreateMapArea",
            [("mapItemId", webMap), ("areaType", "ENVELOPE"), ("area", area.jsonText), ("outputName", JSONValue.object(outputName).jsonText)])
        guard let id = created.stringValue else { throw ClientError.invalidResponse("CreateMapArea answered no map area id") }
        var setup = [("mapAreaItemId", id)]
        if let updatesKeptDays {
            let map = try checked(try await connection.getJSON(portal("content/items/\(webMap)/data")))
            let layers = (map["operationalLayers"]?.arrayValue ?? []) + (map["tables"]?.arrayValue ?? [])
            var services: [String] = []
            for url in layers.compactMap({ $0["url"]?.stringValue }) {
                guard let end = url.range(of: "/FeatureServer") else { continue }
                let service = String(url[..<end.upperBound])
                if !services.contains(service) { services.append(service) }
            }
            let options = services.map { JSONValue.object(["url": .string($0), "createPkgDeltas": ["maxDeltaAge": .int(Int64(updatesKeptDays))]]) }
            setup.append(("featureServices", JSONValue.array(options).jsonText))
        }
        return (id, try await run("SetupMapArea", setup))
    }

    /// RefreshMapAreaPackage of every package of the area (`Area2Package`).
    public func refresh(area: String) async throws -> JSONValue {
        let related = try checked(
            try await connection.getJSON(
                portal("content/items/\(area)/relatedItems"), [("relationshipTypes", "Area2Package"), ("direction", "forward")]))
        let packages = (related["relatedItems"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }.map {
            JSONValue.object(["itemId": .string($0)])
        }
        return try await run("RefreshMapAreaPackage", [("packages", JSONValue.array(packages).jsonText)])
    }

    /// Deletes the area (its packages go with it).
    public func delete(area: String) async throws {
        let item = try checked(try await connection.getJSON(portal("content/items/\(area)")))
        guard let owner = item["owner"]?.stringValue else { throw ClientError.invalidResponse("the area has no owner") }
        _ = try checked(try await connection.postForm(portal("content/users/\(owner)/items/\(area)/delete"), []))
    }

    /// Submits a packaging task, waits for its job, and returns its one output's value.
    func run(_ task: String, _ fields: [(String, String)]) async throws -> JSONValue {
        let me = try checked(try await connection.getJSON(portal("portals/self")))
        guard let service = me["helperServices"]?["packaging"]?["url"]?.stringValue, let url = URL(string: service) else {
            throw ClientError.invalidResponse("the portal names no packaging service")
        }
        let submitted = try checked(try await connection.postForm(url.appendingPathComponent("\(task)/submitJob"), fields))
        guard let job = submitted["jobId"]?.stringValue else { throw ClientError.invalidResponse("\(task) answered no job") }
        let jobURL = url.appendingPathComponent("\(task)/jobs/\(job)")
        while true {
            guard let status = GeoprocessingJobStatus(json: try checked(try await connection.getJSON(jobURL))) else {
                throw ClientError.invalidResponse("\(task)'s job answered no status")
            }
            if status.status == .succeeded {
                guard let name = status.results.first else { return .null }
                return try checked(try await connection.getJSON(jobURL.appendingPathComponent("results/\(name)")))["value"] ?? .null
            }
            if status.status.isTerminal {
                let errors = status.messages.filter { $0.kind == .error }.map(\.description)
                throw ClientError.invalidResponse("\(task) failed: \(errors.joined(separator: " "))")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
