import Foundation
import OutpostGeocoding
import OutpostGeometry
import OutpostStorage
import OutpostWire

/// Builds a locator from one layer of a feature service (`outpost locator create`): each
/// feature becomes an entry (`LocatorEntry.make`) or a counted refusal; the entries replace the
/// locator's in one transaction. Coordinates are read projected to Web Mercator by the store.
public enum LocatorBuilder {
    /// The most features a locator is built from: counted before anything is read.
    public static let maximumFeatures = 2_000_000

    public enum Failure: Error, Equatable, CustomStringConvertible, ArcGISErrorConvertible {
        case invalidName(String)
        case unknownField(String)
        case noComponentField(LocatorEntry.Kind)
        case tooManyFeatures(Int)
        case nameTaken(String)

        public var description: String {
            switch self {
            case .invalidName(let name): "'\(name)' cannot be a locator's name: letters, digits, _ and -, optionally in one folder"
            case .unknownField(let field): "the layer has no field '\(field)'"
            case .noComponentField(let kind): "a \(kind.rawValue) locator needs the field its entries are found by"
            case .tooManyFeatures(let count): "the layer has \(count) features; a locator is built from at most \(LocatorBuilder.maximumFeatures)"
            case .nameTaken(let name): "'\(name)' is taken by a service, a network or a folder of services, or names a service as its folder"
            }
        }

        public var arcGISError: ArcGISError { .invalidParameter("locator", description) }
    }

    /// Builds (or rebuilds) the locator and returns what was stored.
    @discardableResult
    public static func build(_ definition: LocatorDefinition, in store: some OutpostBackend) throws -> StoredLocator {
        guard ServiceDefinition.isValidName(definition.name) else { throw Failure.invalidName(definition.name) }
        guard try DirectoryNames.isFree(definition.name, for: .locator, in: store) else { throw Failure.nameTaken(definition.name) }
        let layer = try store.schema.layer(service: definition.service, id: definition.layer)
        let names = Set(layer.definition.fields.map { $0.name.lowercased() })
        for (_, field) in definition.fields.named where !names.contains(field.lowercased()) { throw Failure.unknownField(field) }
        guard hasFindingField(definition) else { throw Failure.noComponentField(definition.kind) }
        let count = try store.features.count(service: definition.service, layer: definition.layer)
        guard count <= maximumFeatures else { throw Failure.tooManyFeatures(count) }

        // The generation is read first: a change made while the pages are read is followed
        // again by the next refresh (an upsert twice is one).
        let generation = try LayerChangesSince.generation(service: definition.service, layer: definition.layer, in: store)
        var entries: [LocatorEntry] = []
        var refused: [String: Int] = [:]
        try LayerPages.forEach(service: definition.service, layer: layer, fields: definition.fields.named.map(\.field), count: count, in: store) {
            feature in
            switch entry(of: feature, definition, layer: layer.definition) {
            case .success(let entry): entries.append(entry)
            case .failure(let refusal): refused[String(describing: refusal).prefix(while: { $0 != "(" }).description, default: 0] += 1
            }
        }
        let localities = KnownLocalities(entries: entries)
        let stored = StoredLocator(
            definition: definition, entryCount: entries.count, refused: refused,
            knownLocalities: localities.names.sorted { $0.lexicographicallyPrecedes($1) },
            builtAt: store.clock.milliseconds(), generation: generation)
        try store.locators.saveLocator(stored, entries: entries)
        return stored
    }

    /// One feature's entry, or why it makes none. A full address is read without known
    /// localities: its commas set its locality apart.
    static func entry(
        of feature: LayerPages.Feature, _ definition: LocatorDefinition, layer: LayerDefinition
    ) -> Result<
        LocatorEntry, LocatorEntryRefusal
    > {
        let text = { (field: String?) in feature.value(field).flatMap(Self.text) }
        let (location, polyline) = geometry(feature.geometry)
        return Result { () throws(LocatorEntryRefusal) in
            try LocatorEntry.make(
                id: text(layer.objectIdField) ?? "", kind: definition.kind, fields: sourceFields(definition.fields, text), location: location,
                polyline: polyline, knownLocalities: .none)
        }
    }

    static func hasFindingField(_ definition: LocatorDefinition) -> Bool {
        let fields = definition.fields
        switch definition.kind {
        case .pointAddress: return fields.fullAddress != nil || (fields.houseNumber != nil && fields.street != nil)
        case .streetCenterline: return fields.street != nil || fields.fullAddress != nil
        case .place: return fields.placeName != nil
        case .locality: return fields.locality != nil
        case .postal: return fields.postcode != nil
        }
    }

    static func sourceFields(_ fields: LocatorDefinition.Fields, _ text: (String?) -> String?) -> LocatorSourceFields {
        var source = LocatorSourceFields(
            houseNumber: text(fields.houseNumber), street: text(fields.street), locality: text(fields.locality), postcode: text(fields.postcode),
            fullAddress: text(fields.fullAddress), placeName: text(fields.placeName))
        let ends = [fields.fromLeft, fields.toLeft, fields.fromRight, fields.toRight].map { text($0).flatMap { Int($0) } }
        if ends.contains(where: { $0 != nil }) {
            source.ranges = HouseNumberRanges(leftFrom: ends[0], leftTo: ends[1], rightFrom: ends[2], rightTo: ends[3])
        }
        return source
    }

    /// A feature's point, or a line's vertices (a multi-line's longest part); nothing outside
    /// Web Mercator's square (a pole projects to a y of millions of kilometres), which
    /// `LocatorEntry.make` then refuses as `noGeometry`.
    static func geometry(_ geometry: OGCGeometry?) -> (PlanarPoint?, [[Double]]) {
        let (point, line) = anyGeometry(geometry)
        let inside = { (x: Double, y: Double) in abs(x) <= WebMercator.halfWidth && abs(y) <= WebMercator.halfWidth }
        guard point.map({ inside($0.x, $0.y) }) ?? true, line.allSatisfy({ $0.count >= 2 && inside($0[0], $0[1]) }) else { return (nil, []) }
        return (point, line)
    }

    static func anyGeometry(_ geometry: OGCGeometry?) -> (PlanarPoint?, [[Double]]) {
        switch geometry {
        case .point(let point): return (PlanarPoint(x: point.x, y: point.y), [])
        case .multiPoint(let points): return (points.first.map { PlanarPoint(x: $0.x, y: $0.y) }, [])
        case .lineString(let points): return (nil, points.map { [$0.x, $0.y] })
        case .multiLineString(let parts):
            let longest = parts.max { $0.count < $1.count } ?? []
            return (nil, longest.map { [$0.x, $0.y] })
        default: return (nil, [])
        }
    }

    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        case .double(let number): number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        default: nil
        }
    }
}
