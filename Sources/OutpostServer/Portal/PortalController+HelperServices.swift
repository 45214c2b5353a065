import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// The organisation's utility services (docs/portal.md, "Utility services"): what
/// `portals/self.helperServices` names for geocoding and routing, and `portals/self/update`,
/// where an administrator chooses them (`geocodeService`, `routeServiceLayer`, as the ArcGIS
/// API for Python's `gis.update_properties` sends them).
extension PortalController {
    func addHelperServiceRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes.change("portals/:portal/update", store: { _, c in try updatePortal(c) })
    }

    /// The parameters `portals/self/update` keeps; any other given a value is refused, so a
    /// setting Outpost does not keep never looks kept.
    static var keptPortalSettings: Set<String> { ["geocodeservice", "routeservicelayer"] }

    private func updatePortal(_ c: OutpostRequestContext) throws -> Response {
        let p = c.form.parameters
        let portal = c.parameters.get("portal") ?? ""
        guard portal.lowercased() == "self" || portal == Self.organizationId else {
            throw ArcGISError(kind: .notFound, message: "Portal not found.", details: ["Outpost's portal is 'self' or '\(Self.organizationId)'."])
        }
        // The request's own parameters; `clearEmptyFields` is moot, as empty fields change nothing.
        let ignored: Set<String> = ["f", "token", "callback", "clearemptyfields"]
        let unkept = p.names.filter { !ignored.contains($0) && !Self.keptPortalSettings.contains($0) && p.string($0) != nil }
        guard unkept.isEmpty else {
            throw ArcGISError(
                kind: .invalidParameter, message: "Unable to update the portal.",
                details: ["Outpost keeps geocodeService and routeServiceLayer; not \(unkept.joined(separator: ", "))."])
        }
        let locators = try store.locators.locators().map(\.name)
        let networks = try store.networks.networks().map(\.name)
        let choice = try HelperServiceChoice.read(from: store).updated(by: p, locators: locators, networks: networks)
        try choice.save(to: store)
        return RESTResponse.json(["success": true, "id": .string(Self.organizationId)], parameters: p)
    }

    /// `helperServices.geocode` and `.route` as the organisation chose them (by default every
    /// locator, and the first network, by name): what `get_geocoders`, `arcgis.network` and
    /// the Maps SDKs' search and route tasks read. `route` is absent without one. Under token
    /// security an anonymous caller is told neither: the services' names and items are the
    /// organisation's, as its directory is.
    func taskHelperServices(base: String, anonymous: Bool) throws -> (geocode: JSONValue, route: JSONValue?) {
        if requireAuth, anonymous { return ([], nil) }
        let choice = try HelperServiceChoice.read(from: store)
        let geocoders = choice.geocoders(of: try store.locators.locators().map(\.name))
        let geocode = JSONValue.array(
            geocoders.map { name in
                [
                    "url": .string(base + "/arcgis/rest/services/\(name)/GeocodeServer"), "name": .string(name),
                    "itemId": .string(ServiceItems.id(forLocator: name)), "singleLineFieldName": "SingleLine",
                    "placefinding": true, "batch": true, "suggest": true,
                ]
            })
        let route = choice.routeNetwork(of: try store.networks.networks().map(\.name)).map { name -> JSONValue in
            [
                "url": .string(base + "/arcgis/rest/services/\(name)/NAServer/Route"),
                "itemId": .string(ServiceItems.id(forNetwork: name)),
            ]
        }
        return (geocode, route)
    }
}
