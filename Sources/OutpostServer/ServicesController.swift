import Hummingbird
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
        return RESTResponse.json([
            "currentVersion": .double(FeatureServiceMetadata.currentVersion),
            "fullVersion": "11.1.0",
            "soapUrl": .null,
            "secureSoapUrl": .null,
            "authInfo": .object(authInfo),
        ], parameters: p)
    }

    func list(_ p: RequestParameters, request: Request) throws -> Response {
        let services = store.catalog.services.map { service -> JSONValue in
            ["name": .string(service.definition.name), "type": "FeatureServer"]
        }
        return RESTResponse.json([
            "currentVersion": .double(FeatureServiceMetadata.currentVersion),
            // The ArcGIS API for Python in standalone-server mode (ServicesDirectory) reads
            // `gis.version` from this document and compares it with lists such as [10, 3].
            "version": [11, 1],
            "folders": [],
            "services": .array(services),
        ], parameters: p)
    }

    func service(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let service = try store.service(named: try context.serviceName())
        let extent = try store.fullExtent(of: service)
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
        let state = FeatureServiceMetadata.LayerState(extent: try store.extent(of: layer), lastEditDate: try store.lastEditDate(of: layer))
        return FeatureServiceMetadata.layerJSON(layer.definition, service: service.definition, state: state)
    }
}
