import Hummingbird
import OutpostStorage
import OutpostStore
import OutpostWire

/// The directory resources: server info, the services list, service and layer metadata.
struct ServicesController: Sendable {
    let store: FeatureStore

    /// `rest/info`; with token security it names the token service (standalone mode, as the
    /// ArcGIS API for Python expects: `authInfo.tokenServicesUrl`, no `owningSystemUrl`).
    func info(_ p: RequestParameters, request: Request, scheme: String, requireAuth: Bool, tokenMinutes: Int) -> Response {
        var authInfo: JSONObject = ["isTokenBasedSecurity": .bool(requireAuth)]
        if requireAuth {
            authInfo["tokenServicesUrl"] = .string("\(scheme)://\(request.head.authority ?? "127.0.0.1")/arcgis/tokens/generateToken")
            authInfo["shortLivedTokenValidity"] = .int(Int64(tokenMinutes))
        }
        return RESTResponse.json(
            [
                "currentVersion": .double(FeatureServiceMetadata.currentVersion),
                "fullVersion": "11.1.0",
                "soapUrl": .null,
                "secureSoapUrl": .null,
                "authInfo": .object(authInfo),
            ], parameters: p)
    }

    /// The root folder: its folders, and the services outside any folder.
    func list(_ p: RequestParameters, request: Request) throws -> Response {
        let definitions = store.catalog.services.map(\.definition)
        var folders: [String] = []
        for folder in definitions.compactMap(\.folder) where !folders.contains(where: { $0.caseInsensitiveCompare(folder) == .orderedSame }) {
            folders.append(folder)
        }
        return RESTResponse.json(
            [
                "currentVersion": .double(FeatureServiceMetadata.currentVersion),
                // The ArcGIS API for Python in standalone-server mode (ServicesDirectory) reads
                // `gis.version` from this document and compares it with lists such as [10, 3].
                "version": [11, 1],
                "folders": .array(folders.sorted { $0.lowercased() < $1.lowercased() }.map { .string($0) }),
                "services": .array(definitions.filter { $0.folder == nil }.map(Self.entry)),
            ], parameters: p)
    }

    /// A folder: its services, named `Folder/Name` as ArcGIS Server names them. Folders exist
    /// while a service is in them (there is nothing else to a folder here).
    func folder(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        // `/services/:service` is a folder's path: the one segment names the folder.
        guard let name = context.parameters.get("service") else { throw ArcGISError.notFound("Folder") }
        let services = store.catalog.services.map(\.definition).filter { $0.folder?.caseInsensitiveCompare(name) == .orderedSame }
        guard !services.isEmpty else {
            throw ArcGISError(kind: .notFound, message: "Folder not found.", details: ["There is no folder '\(name)' on this server."])
        }
        return RESTResponse.json(
            [
                "currentVersion": .double(FeatureServiceMetadata.currentVersion),
                "folders": [],
                "services": .array(services.map(Self.entry)),
            ], parameters: p)
    }

    private static func entry(_ service: ServiceDefinition) -> JSONValue {
        ["name": .string(service.name), "type": "FeatureServer"]
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
