import OutpostStorage
import OutpostWire

/// The portal items standing for the server's own services: one `Feature Service` item per
/// feature service, one per tile service, one `Geocoding Service` per locator and one
/// `Network Analysis Service` per network, derived from the store on each request (never
/// stored, so they cannot drift from it). Their ids are stable: derived from the service's name.
public enum ServiceItems {
    /// Who owns the service items: the server itself, as `esri` owns Living Atlas content.
    public static let owner = PortalNames.serverOwner

    /// Items for every service of `catalog`, with URLs below `server` (`https://host:port`).
    /// They are public without token security and shared with the organisation with it, as
    /// the services themselves are.
    public static func items(for catalog: Catalog, tileSets: [TileSet] = [], server: String, securityOn: Bool) -> [PortalItem] {
        let tiles = tileSets.map { set in
            PortalItem(
                id: id(forService: "\(set.kind.serviceKind):\(set.name)"), owner: owner, title: set.name,
                type: set.kind == .raster ? "Map Service" : "Vector Tile Service", access: securityOn ? .org : .public, created: set.created,
                typeKeywords: set.kind == .raster
                    ? ["ArcGIS Server", "Data", "Map Service", "Service", "Tiled", "Hosted Service"]
                    : ["ArcGIS Server", "Data", "Vector Tile Service", "Service", "Hosted Service"],
                snippet: set.description, description: set.description, url: "\(server)/arcgis/rest/services/\(set.name)/\(set.kind.serviceKind)",
                extent: set.bounds.count == 4 ? [[set.bounds[0], set.bounds[1]], [set.bounds[2], set.bounds[3]]] : [], spatialReference: "102100")
        }
        return features(for: catalog, server: server, securityOn: securityOn) + tiles
    }

    /// Every service item of `store`: features, tiles, locators and networks.
    public static func items(in store: some OutpostBackend, server: String, securityOn: Bool) throws -> [PortalItem] {
        try items(for: store.catalog(), tileSets: store.tiles.tileSets(), server: server, securityOn: securityOn)
            + tasks(locators: store.locators.locators(), networks: store.networks.networks(), server: server, securityOn: securityOn)
    }

    /// The items of locators (`Geocoding Service`, as `arcgis.geocoding.Geocoder.fromitem`
    /// takes) and networks (`Network Analysis Service`, as `arcgis.network`'s `fromitem` takes).
    public static func tasks(locators: [StoredLocator], networks: [StoredNetwork], server: String, securityOn: Bool) -> [PortalItem] {
        let access: ItemAccess = securityOn ? .org : .public
        let geocoders = locators.map { locator in
            let about = "Finds the \(locator.definition.kind.rawValue) entries of \(locator.definition.service), layer \(locator.definition.layer)."
            return PortalItem(
                id: id(forLocator: locator.name), owner: owner, title: locator.name, type: "Geocoding Service",
                access: access, created: locator.builtAt,
                typeKeywords: ["ArcGIS Server", "Geocoding Service", "Locator Service", "Service", "Tool", "Single Line Address"],
                snippet: about, description: about, url: "\(server)/arcgis/rest/services/\(locator.name)/GeocodeServer", spatialReference: "4326")
        }
        let routes = networks.map { network in
            let about = "Routes over the lines of \(network.definition.service), layer \(network.definition.layer)."
            let e = network.extent
            return PortalItem(
                id: id(forNetwork: network.name), owner: owner, title: network.name, type: "Network Analysis Service",
                access: access, created: network.builtAt,
                typeKeywords: ["ArcGIS Server", "Network Analysis Service", "Service", "Tool", "Route"], snippet: about, description: about,
                url: "\(server)/arcgis/rest/services/\(network.name)/NAServer", extent: e.count == 4 ? [[e[0], e[1]], [e[2], e[3]]] : [],
                spatialReference: "4326")
        }
        return geocoders + routes
    }

    static func features(for catalog: Catalog, server: String, securityOn: Bool) -> [PortalItem] {
        catalog.services.map { service in
            let definition = service.definition
            var keywords = ["ArcGIS Server", "Data", "Feature Access", "Service", "Singlelayer", "Hosted Service"]
            if definition.capabilities.contains("Sync") { keywords.append("Sync") }
            if definition.isVersioned { keywords.append("Versioned") }
            return PortalItem(
                id: id(forService: definition.name), owner: owner, title: definition.name, type: "Feature Service",
                access: securityOn ? .org : .public, created: 0, typeKeywords: keywords, tags: [],
                snippet: definition.description, description: definition.description,
                url: "\(server)/arcgis/rest/services/\(definition.name)/FeatureServer", spatialReference: "\(definition.spatialReference.wkid)")
        }
    }

    /// The item id of a locator's `GeocodeServer` and of a network's `NAServer`.
    public static func id(forLocator name: String) -> String { id(forService: "GeocodeServer:\(name)") }
    public static func id(forNetwork name: String) -> String { id(forService: "NAServer:\(name)") }

    /// A stable item id for a service name: two FNV-1a hashes of the lowercased name, as 32
    /// hexadecimal digits (an id, not a secret).
    public static func id(forService name: String) -> String {
        let bytes = Array("outpost-service:\(name.lowercased())".utf8)
        func fnv(_ offset: UInt64) -> String {
            var hash = offset
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        return fnv(0xcbf2_9ce4_8422_2325) + fnv(0x84222325_cbf29ce4)
    }
}
