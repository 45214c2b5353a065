import Foundation
import OutpostStorage
import OutpostWire

/// The organisation's choice of utility services (docs/portal.md, "Utility services"): which
/// locators `portals/self.helperServices.geocode` lists, in order, and which network is its
/// `route`. Nil for either is the default (every locator by name; the first network by
/// name); an empty list is none. Kept by name (`StoreSetting.helperServices`), so a locator
/// built anew under its name stays chosen, and a removed one is left out while it is gone.
public struct HelperServiceChoice: Codable, Equatable, Sendable {
    public var geocode: [String]?
    public var route: [String]?

    public init(geocode: [String]? = nil, route: [String]? = nil) {
        self.geocode = geocode
        self.route = route
    }

    /// The most locators a choice lists, and the most bytes of either parameter.
    public static let maximumGeocoders = 16
    public static let maximumParameterBytes = 65_536

    /// The choice after `portals/self/update`'s `geocodeService` (a JSON array of objects with
    /// the `url` of one of `locators`' `GeocodeServer`) and `routeServiceLayer` (an object with
    /// the `url` of one of `networks`' `NAServer/Route`). JSON `null` goes back to the default;
    /// `[]` / `{}` choose none; an absent or empty parameter leaves its part as it was. Any
    /// other URL, or a name that is no locator or network here, is refused: nothing changes.
    public func updated(by p: RequestParameters, locators: [String], networks: [String]) throws(ArcGISError) -> HelperServiceChoice {
        var next = self
        if let value = try Self.json(p, "geocodeService") {
            switch value {
            case .null: next.geocode = nil
            case .array(let entries):
                guard entries.count <= Self.maximumGeocoders else {
                    throw .invalidParameter("geocodeService", "more than \(Self.maximumGeocoders) geocode services")
                }
                var names: [String] = []
                for entry in entries {
                    let name = try Self.name(entry["url"]?.stringValue, "geocodeService", among: locators, service: ["GeocodeServer"])
                    if !names.contains(name) { names.append(name) }
                }
                next.geocode = names
            default: throw .invalidParameter("geocodeService", "an array of objects with a url, or null")
            }
        }
        if let value = try Self.json(p, "routeServiceLayer") {
            switch value {
            case .null: next.route = nil
            case .object(let fields) where fields.isEmpty || fields["url"]?.stringValue == "": next.route = []
            case .object(let fields):
                next.route = [try Self.name(fields["url"]?.stringValue, "routeServiceLayer", among: networks, service: ["NAServer", "Route"])]
            default: throw .invalidParameter("routeServiceLayer", "an object with a url, or null")
            }
        }
        return next
    }

    /// The locators to list, of `locators` (by name, sorted): the chosen ones still there.
    public func geocoders(of locators: [String]) -> [String] {
        guard let geocode else { return locators }
        return geocode.compactMap { name in locators.first { $0.caseInsensitiveCompare(name) == .orderedSame } }
    }

    /// The network to name as `route`, of `networks` (by name, sorted); nil for none.
    public func routeNetwork(of networks: [String]) -> String? {
        guard let route else { return networks.first }
        return route.first.flatMap { name in networks.first { $0.caseInsensitiveCompare(name) == .orderedSame } }
    }

    private static func json(_ p: RequestParameters, _ name: String) throws(ArcGISError) -> JSONValue? {
        guard let raw = p[name], p.string(name) != nil else { return nil }
        guard raw.utf8.count <= maximumParameterBytes else { throw .invalidParameter(name, "more than \(maximumParameterBytes) bytes") }
        return try p.json(name)
    }

    /// The service name a URL's path names: `…/rest/services/<name>/<service…>`, the name one
    /// of `names` (its spelling kept).
    private static func name(_ url: String?, _ parameter: String, among names: [String], service: [String]) throws(ArcGISError) -> String {
        // A path of this server, or an http(s) URL (whose host is not checked: the server may
        // be known by several names); never a query, a fragment or an escaped character.
        let components = url.flatMap { URLComponents(string: $0) }
        let plain =
            components.map { ($0.scheme == nil || ["http", "https"].contains($0.scheme?.lowercased())) && $0.query == nil && $0.fragment == nil }
            ?? false
        let path = plain && !(url ?? "").contains("%") ? components?.path ?? "" : ""
        var segments = path.split(separator: "/").map(String.init)
        if service.count > 1, segments.last == service.first { segments.append(service[1]) }
        let expected = "…/rest/services/<name>/\(service.joined(separator: "/"))"
        guard segments.count >= service.count + 3, Array(segments.suffix(service.count)) == service,
            segments[segments.count - service.count - 2] == "services", segments[segments.count - service.count - 3] == "rest"
        else { throw .invalidParameter(parameter, "'\((url ?? "").prefix(200))' is not a URL of \(expected) on this server") }
        let named = segments[segments.count - service.count - 1]
        guard let found = names.first(where: { $0.caseInsensitiveCompare(named) == .orderedSame }) else {
            throw .invalidParameter(parameter, "there is no \(service[0]) named '\(named.prefix(100))' here")
        }
        return found
    }
}

extension HelperServiceChoice {
    /// The store's choice; the default when none is kept (or it no longer reads).
    public static func read(from store: some OutpostBackend) throws -> HelperServiceChoice {
        guard let text = try store.maintenance.setting(.helperServices) else { return HelperServiceChoice() }
        return (try? JSONDecoder().decode(HelperServiceChoice.self, from: Data(text.utf8))) ?? HelperServiceChoice()
    }

    public func save(to store: some OutpostBackend) throws {
        let text = self == HelperServiceChoice() ? nil : String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
        try store.maintenance.setSetting(.helperServices, to: text)
    }
}
