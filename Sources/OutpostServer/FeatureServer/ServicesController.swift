import Hummingbird
import OutpostStorage
import OutpostWire

/// The directory resources: server info, the services list, service and layer metadata.
struct ServicesController<Backend: OutpostBackend>: Sendable {
    let store: Backend

    /// `rest/info`, as a server federated with the portal answers it (docs/portal.md,
    /// "Federation"): `owningSystemUrl` names the portal (this server's `/arcgis`, as the
    /// portal's own `info` does), so the Maps SDK for JavaScript and ArcGIS REST JS signed in
    /// to the portal use its tokens here instead of asking for a second sign-in (REST JS
    /// refuses a server without it: `NOT_FEDERATED`); with token security the token service
    /// is the portal's. The ArcGIS API for Python reads only `authInfo` (both token services
    /// take a user name and password).
    func info(_ p: RequestParameters, request: Request, origin: ServerOrigin, requireAuth: Bool, tokenMinutes: Int) -> Response {
        let root = "\(origin.of(request))/arcgis"
        var authInfo: JSONObject = ["isTokenBasedSecurity": .bool(requireAuth)]
        if requireAuth {
            authInfo["tokenServicesUrl"] = .string(root + "/sharing/rest/generateToken")
            authInfo["shortLivedTokenValidity"] = .int(Int64(tokenMinutes))
        }
        return RESTResponse.json(
            [
                "currentVersion": .double(FeatureServiceMetadata.currentVersion),
                "fullVersion": "11.1.0",
                "soapUrl": .null,
                "secureSoapUrl": .null,
                "owningSystemUrl": .string(root),
                "authInfo": .object(authInfo),
            ], parameters: p)
    }

    /// The root folder: its folders, and the services outside any folder.
    func list(_ p: RequestParameters, request: Request) throws -> Response {
        let entries = try allEntries()
        var folders: [String] = []
        for folder in entries.compactMap(\.folder) where !folders.contains(where: { $0.caseInsensitiveCompare(folder) == .orderedSame }) {
            folders.append(folder)
        }
        return RESTResponse.json(
            [
                "currentVersion": .double(FeatureServiceMetadata.currentVersion),
                // The ArcGIS API for Python in standalone-server mode (ServicesDirectory) reads
                // `gis.version` from this document and compares it with lists such as [10, 3].
                "version": [11, 1],
                "folders": .array(folders.sorted { $0.lowercased() < $1.lowercased() }.map { .string($0) }),
                "services": .array(entries.filter { $0.folder == nil }.map(\.json)),
            ], parameters: p)
    }

    /// A folder: its services, named `Folder/Name` as ArcGIS Server names them. Folders exist
    /// while a service is in them (there is nothing else to a folder here).
    func folder(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        // `/services/:service` is a folder's path: the one segment names the folder.
        guard let name = context.parameters.get("service") else { throw ArcGISError.notFound("Folder") }
        let services = try allEntries().filter { $0.folder?.caseInsensitiveCompare(name) == .orderedSame }
        guard !services.isEmpty else {
            throw ArcGISError(kind: .notFound, message: "Folder not found.", details: ["There is no folder '\(name)' on this server."])
        }
        return RESTResponse.json(
            [
                "currentVersion": .double(FeatureServiceMetadata.currentVersion),
                "folders": [],
                "services": .array(services.map(\.json)),
            ], parameters: p)
    }

    /// A service as a directory lists it: feature services, tile services, locators, then networks, by name.
    struct Entry {
        var name: String
        var type: String
        var folder: String? { name.contains("/") ? String(name.split(separator: "/")[0]) : nil }
        var json: JSONValue { ["name": .string(name), "type": .string(type)] }
    }

    func allEntries() throws -> [Entry] {
        try store.catalog().services.map { Entry(name: $0.definition.name, type: "FeatureServer") }
            + (try store.tiles.tileSets().map { Entry(name: $0.name, type: $0.kind.serviceKind) })
            + (try store.locators.locators().map { Entry(name: $0.name, type: "GeocodeServer") })
            + (try store.networks.networks().map { Entry(name: $0.name, type: "NAServer") })
    }

    func service(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let service = try store.service(named: try context.serviceName())
        let extent = try store.features.fullExtent(of: service)
        return RESTResponse.json(FeatureServiceMetadata.serviceJSON(service.definition, fullExtent: extent), parameters: p)
    }

    func layers(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let service = try store.service(named: try context.serviceName())
        var layers: [JSONValue] = []
        var tables: [JSONValue] = []
        for layer in service.layers {
            let json = try layerJSON(layer, service: service)
            if layer.definition.kind == .table { tables.append(json) } else { layers.append(json) }
        }
        return RESTResponse.json(["layers": .array(layers), "tables": .array(tables)], parameters: p)
    }

    func layer(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let layer = try store.layer(service: try context.serviceName(), id: try context.layerId())
        let service = try store.service(named: layer.serviceName)
        return RESTResponse.json(try layerJSON(layer, service: service), parameters: p)
    }

    private func layerJSON(_ layer: StoredLayer, service: StoredService) throws -> JSONValue {
        let state = FeatureServiceMetadata.LayerState(
            extent: try store.features.extent(of: layer), lastEditDate: try store.features.lastEditDate(of: layer))
        return FeatureServiceMetadata.layerJSON(layer.definition, service: service.definition, state: state)
    }
}
