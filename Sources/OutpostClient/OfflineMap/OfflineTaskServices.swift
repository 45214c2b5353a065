import Foundation
import OutpostWire

/// The portal's utility services an offline map may carry (docs/offline-map-format.md, "Tasks"):
/// its locators (`helperServices.geocode`) and its route service (`helperServices.route`), as
/// `portals/self` names them.
public struct PortalHelperServices: Sendable, Equatable, Codable {
    /// `…/GeocodeServer` URLs.
    public var locators: [String] = []
    /// The `…/NAServer` of `helperServices.route` (whose URL names its `Route` layer).
    public var network: String?

    public init(locators: [String] = [], network: String? = nil) {
        self.locators = locators
        self.network = network
    }

    /// From `portals/self`'s `helperServices`; URLs of other kinds are left out.
    public init(portalSelf json: JSONValue) {
        let helpers = json["helperServices"]
        locators = (helpers?["geocode"]?.arrayValue ?? []).compactMap { $0["url"]?.stringValue }.map(Self.trimmed).filter {
            $0.hasSuffix("/GeocodeServer")
        }
        if var route = helpers?["route"]?["url"]?.stringValue.map(Self.trimmed) {
            if route.hasSuffix("/Route") { route.removeLast("/Route".count) }
            network = route.hasSuffix("/NAServer") ? route : nil
        }
    }

    static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// The services a web map asks for, of those on the portal's own server: its locators when
    /// the map lets its users find places (`applicationProperties.viewing.search.enabled`,
    /// without `disablePlaceFinder`), its route service when it lets them route
    /// (`viewing.routing.enabled`). A utility service of another server (a world geocoder)
    /// cannot be exported, so it stays online.
    public func asked(by webMap: JSONValue, portal: URL) -> (locators: [String], networks: [String]) {
        let viewing = webMap["applicationProperties"]?["viewing"]
        let search = viewing?["search"]
        let findsPlaces = search?["enabled"]?.boolValue == true && search?["disablePlaceFinder"]?.boolValue != true
        let routes = viewing?["routing"]?["enabled"]?.boolValue == true
        func own(_ url: String) -> Bool {
            guard let service = URL(string: url) else { return false }
            return service.scheme == portal.scheme && service.host == portal.host && service.port == portal.port
        }
        return (findsPlaces ? locators.filter(own) : [], routes ? [network].compactMap { $0 }.filter(own) : [])
    }
}
