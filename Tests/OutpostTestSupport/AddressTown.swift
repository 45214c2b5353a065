import OutpostGeometry
import OutpostService
import OutpostStorage
import OutpostWire

/// A small town for locator tests (docs/geocoding.md): service `Town` with address points in
/// layer 0 and a ranged centre-line in layer 1; `addresses` is its address locator's definition.
public enum AddressTown {
    public static let streets = ["Hill Street", "Station Road", "Church Lane"]

    /// Address points 30 m apart: 10 numbers on each of three streets in Springfield, and
    /// 1 Hill Street in Shelbyville; a street centre-line with ranges 100–198 / 101–199.
    public static func make(_ store: some OutpostBackend) throws {
        let text = { (name: String) in FieldDefinition(name: name, type: .string, length: 60) }
        let points = LayerDefinition(
            id: 0, name: "Addresses", kind: .featureLayer, geometryType: .point, spatialReference: .wgs84,
            fields: LayerDefinition.withSystemFields([text("NUM"), text("STREET"), text("TOWN"), text("POSTCODE")]))
        let lines = LayerDefinition(
            id: 1, name: "Streets", kind: .featureLayer, geometryType: .polyline, spatialReference: .wgs84,
            fields: LayerDefinition.withSystemFields(
                [text("STREET"), text("TOWN")] + ["FL", "TL", "FR", "TR"].map { FieldDefinition(name: $0, type: .integer) }))
        _ = try store.schema.createService(ServiceDefinition(name: "Town", spatialReference: .wgs84, layers: [points, lines]))
        var rows: [FeatureRow] = []
        for (s, street) in streets.enumerated() {
            for number in 1...10 {
                rows.append(
                    FeatureRow(
                        attributes: ["NUM": .string(String(number)), "STREET": .string(street), "TOWN": "Springfield", "POSTCODE": "90210"],
                        geometry: .point(location(street: s, number: number))))
            }
        }
        rows.append(FeatureRow(attributes: ["NUM": "1", "STREET": "Hill Street", "TOWN": "Shelbyville"], geometry: .point(Point(x: 13.5, y: 52.6))))
        rows.append(
            FeatureRow(attributes: ["NUM": "rear", "STREET": "Hill Street", "TOWN": "Springfield"], geometry: .point(Point(x: 13.4, y: 52.5))))
        // At the pole, Web Mercator's y is millions of kilometres: no entry.
        rows.append(FeatureRow(attributes: ["NUM": "7", "STREET": "Pole Street", "TOWN": "Springfield"], geometry: .point(Point(x: 0, y: 90))))
        try store.edits.insert(rows, service: "Town", layer: 0)
        try store.edits.insert(
            [
                FeatureRow(
                    attributes: ["STREET": "Long Road", "TOWN": "Springfield", "FL": 101, "TL": 199, "FR": 100, "TR": 198],
                    geometry: .lineString([Point(x: 13.40, y: 52.53), Point(x: 13.41, y: 52.53)]))
            ], service: "Town", layer: 1)
    }

    public static func location(street: Int, number: Int) -> Point { Point(x: 13.40 + Double(number) * 0.0004, y: 52.52 + Double(street) * 0.001) }

    public static let addresses = LocatorDefinition(
        name: "TownAddresses", service: "Town", layer: 0, kind: .pointAddress,
        fields: .init(houseNumber: "NUM", street: "STREET", locality: "TOWN", postcode: "POSTCODE"))
}

extension AddressTown {
    /// The town and its address locator, `TownAddresses`.
    @discardableResult
    public static func makeLocator(_ store: some OutpostBackend) throws -> StoredLocator {
        try make(store)
        return try LocatorBuilder.build(addresses, in: store)
    }
}
