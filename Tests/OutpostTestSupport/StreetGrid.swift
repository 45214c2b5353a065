import OutpostGeometry
import OutpostService
import OutpostStorage
import OutpostWire

/// A small street network in Berlin for route tests: a 4 × 4 grid of junctions 0.001° apart
/// (about 68 m east–west, 111 m north–south) from (13.40, 52.50). Row streets run east
/// ("Row 0 Street" …), column avenues north ("Column 0 Avenue" …), one line per block, in
/// service `service` layer 0, built into network `network`.
///
/// Row 0's first block is one-way eastward (`FT`); Column 3 Avenue's first block is
/// restricted; Row 3's blocks go at 100 km/h (others at the default 50).
public enum StreetGrid {
    public static let origin = (x: 13.40, y: 52.50)
    public static let step = 0.001

    public static func point(_ column: Int, _ row: Int) -> Point {
        Point(x: origin.x + Double(column) * step, y: origin.y + Double(row) * step)
    }

    public static func definition(_ service: String, _ network: String) -> NetworkDefinition {
        NetworkDefinition(
            name: network, service: service, layer: 0, fields: .init(name: "NAME", oneway: "ONEWAY", speed: "KMH", restricted: "RESTRICTED"))
    }

    @discardableResult
    public static func make(_ store: some OutpostBackend, service: String = "Streets", network: String = "StreetRoutes") throws -> StoredNetwork {
        let layer = LayerDefinition(
            id: 0, name: "Streets", kind: .featureLayer, geometryType: .polyline, spatialReference: .wgs84,
            fields: LayerDefinition.withSystemFields([
                FieldDefinition(name: "NAME", type: .string, length: 60), FieldDefinition(name: "ONEWAY", type: .string, length: 2),
                FieldDefinition(name: "KMH", type: .double), FieldDefinition(name: "RESTRICTED", type: .integer),
            ]))
        _ = try store.schema.createService(ServiceDefinition(name: service, spatialReference: .wgs84, layers: [layer]))
        var rows: [FeatureRow] = []
        for row in 0..<4 {
            for column in 0..<3 {
                var attributes: [String: JSONValue] = ["NAME": .string("Row \(row) Street"), "RESTRICTED": 0]
                if row == 0 && column == 0 { attributes["ONEWAY"] = "FT" }
                if row == 3 { attributes["KMH"] = 100 }
                rows.append(FeatureRow(attributes: attributes, geometry: .lineString([point(column, row), point(column + 1, row)])))
            }
        }
        for column in 0..<4 {
            for row in 0..<3 {
                let restricted: JSONValue = column == 3 && row == 0 ? 1 : 0
                rows.append(
                    FeatureRow(
                        attributes: ["NAME": .string("Column \(column) Avenue"), "RESTRICTED": restricted],
                        geometry: .lineString([point(column, row), point(column, row + 1)])))
            }
        }
        try store.edits.insert(rows, service: service, layer: 0)
        return try NetworkBuilder.build(definition(service, network), in: store)
    }
}
