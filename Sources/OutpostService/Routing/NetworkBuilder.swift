import OutpostGeocoding
import OutpostGeometry
import OutpostRouting
import OutpostStorage
import OutpostWire

/// Builds a route network from one line layer of a feature service (`outpost network
/// create`): each line becomes an edge (`RoadNetworkBuilder`) or a counted refusal; the
/// network replaces any of its name in one transaction. Lines are read in Web Mercator.
public enum NetworkBuilder {
    /// The most lines a network is built from: counted before anything is read.
    public static let maximumLines = 2_000_000

    public enum Failure: Error, Equatable, CustomStringConvertible, ArcGISErrorConvertible {
        case invalidName(String)
        case unknownField(String)
        case tooManyLines(Int)
        case badDefaultSpeed
        case nameTaken(String)
        case notALineLayer
        case notANumberField(String)

        public var description: String {
            switch self {
            case .invalidName(let name): "'\(name)' cannot be a network's name: letters, digits, _ and -, optionally in one folder"
            case .unknownField(let field): "the layer has no field '\(field)'"
            case .tooManyLines(let count): "the layer has \(count) features; a network is built from at most \(NetworkBuilder.maximumLines)"
            case .badDefaultSpeed: "the default speed is a number of km/h above 0"
            case .nameTaken(let name): "'\(name)' is taken by a service, a locator or a folder of services"
            case .notALineLayer: "a network is built from a line layer"
            case .notANumberField(let field): "'\(field)' holds no numbers: speed and cost fields are numeric"
            }
        }

        public var arcGISError: ArcGISError { .invalidParameter("network", description) }
    }

    @discardableResult
    public static func build(_ definition: NetworkDefinition, in store: some OutpostBackend) throws -> StoredNetwork {
        guard ServiceDefinition.isValidName(definition.name) else { throw Failure.invalidName(definition.name) }
        guard definition.defaultSpeed.isFinite, definition.defaultSpeed > 0 else { throw Failure.badDefaultSpeed }
        guard try DirectoryNames.isFree(definition.name, for: .network, in: store) else { throw Failure.nameTaken(definition.name) }
        let layer = try store.schema.layer(service: definition.service, id: definition.layer)
        guard layer.definition.geometryType == .polyline else { throw Failure.notALineLayer }
        let types = Dictionary(layer.definition.fields.map { ($0.name.lowercased(), $0.type) }, uniquingKeysWith: { first, _ in first })
        for (_, field) in definition.fields.named where types[field.lowercased()] == nil { throw Failure.unknownField(field) }
        let numbers: Set<EsriFieldType> = [.integer, .smallInteger, .double, .single]
        for field in [definition.fields.speed, definition.fields.cost].compactMap({ $0 })
        where !(types[field.lowercased()].map(numbers.contains) ?? false) {
            throw Failure.notANumberField(field)
        }
        let count = try store.features.count(service: definition.service, layer: definition.layer)
        guard count <= maximumLines else { throw Failure.tooManyLines(count) }

        let generation = try LayerChangesSince.generation(service: definition.service, layer: definition.layer, in: store)
        var builder = RoadNetworkBuilder(withCost: definition.fields.cost != nil)
        builder.defaultSpeed = definition.defaultSpeed
        let fields = definition.fields
        try LayerPages.forEach(service: definition.service, layer: layer, fields: fields.named.map(\.field), count: count, in: store) { feature in
            let id = feature.value(layer.definition.objectIdField)?.int64Value ?? 0
            for vertices in lines(feature.geometry) {
                builder.add(
                    NetworkSourceLine(
                        id: id, vertices: vertices, name: feature.value(fields.name).flatMap(LocatorBuilder.text) ?? "",
                        directions: OneWayValue.directions(feature.value(fields.oneway)), speed: feature.value(fields.speed)?.doubleValue,
                        cost: feature.value(fields.cost)?.doubleValue, restricted: OneWayValue.isTrue(feature.value(fields.restricted))))
            }
        }
        let network = builder.network
        let corners = [
            (network.vertexX.min() ?? 0, network.vertexY.min() ?? 0), (network.vertexX.max() ?? 0, network.vertexY.max() ?? 0),
        ].map { WebMercator.coordinates(of: PlanarPoint(x: $0.0, y: $0.1)) }
        let stored = StoredNetwork(
            definition: definition, edgeCount: network.edgeCount, junctionCount: network.junctionCount,
            refused: Dictionary(uniqueKeysWithValues: builder.refused.map { ($0.key.rawValue, $0.value) }),
            extent: [corners[0].longitude, corners[0].latitude, corners[1].longitude, corners[1].latitude], builtAt: store.clock.milliseconds(),
            generation: generation)
        try store.networks.saveNetwork(stored, graph: network.encoded())
        return stored
    }

    /// A feature's lines: a line's vertices, each part of a multi-line.
    static func lines(_ geometry: OGCGeometry?) -> [[PlanarPoint]] {
        switch geometry {
        case .lineString(let points): [points.map { PlanarPoint(x: $0.x, y: $0.y) }]
        case .multiLineString(let parts): parts.map { $0.map { PlanarPoint(x: $0.x, y: $0.y) } }
        default: [[]]
        }
    }
}

/// How a one-way or restriction field's values read (docs/routing.md, "Networks").
public enum OneWayValue {
    /// `FT`, `yes`, `true`, `1`, `T`: with the line's drawing; `TF`, `-1`, `reverse`: against
    /// it; `N`, `no travel`: neither; anything else (`B`, empty, null, `no`, `0`): both ways.
    public static func directions(_ value: JSONValue?) -> RoadNetwork.Directions {
        let text = value.flatMap(LocatorBuilder.text)?.trimmingWhitespace().lowercased() ?? ""
        switch text {
        case "ft", "yes", "true", "1", "t", "y": return .forward
        case "tf", "-1", "reverse": return .backward
        case "n", "no travel": return []
        default: return .both
        }
    }

    /// `1`, `true`, `yes`, `y`, `t` (any case) are true; anything else is false.
    public static func isTrue(_ value: JSONValue?) -> Bool {
        if case .bool(let flag) = value { return flag }
        let text = value.flatMap(LocatorBuilder.text)?.trimmingWhitespace().lowercased() ?? ""
        return ["1", "true", "yes", "y", "t"].contains(text)
    }
}
