import OutpostGeocoding
import OutpostGeometry
import OutpostStorage
import OutpostWire

/// Reads every feature of a layer once, in pages by object id (each page starts where the last
/// ended, so a million features are read once rather than skipped again for every page), in
/// Web Mercator: how a locator and a network are built. Features added meanwhile wait for the
/// next build.
struct LayerPages {
    /// One feature's values by field name (any case) and its geometry.
    struct Feature {
        let columns: [String: Int]
        let attributes: [JSONValue]
        let geometry: OGCGeometry?

        func value(_ field: String?) -> JSONValue? {
            guard let field, let index = columns[field.lowercased()], index < attributes.count else { return nil }
            return attributes[index]
        }
    }

    static let pageSize = 2_000

    /// Calls `body` with each of the layer's `count` features, with `fields` and its object id.
    static func forEach(
        service: String, layer: StoredLayer, fields: [String], count: Int, in store: some OutpostBackend, _ body: (Feature) throws -> Void
    ) throws {
        let idField = layer.definition.objectIdField
        var query = LayerQuery()
        query.outFields = [idField] + fields
        query.outSR = SpatialReference(wkid: WebMercator.wkid)
        query.resultRecordCount = pageSize
        query.orderBy = [(idField, true)]
        var read = 0
        var last: Int64?
        while read < count {
            query.whereClause = last.map { "\(idField) > \($0)" }
            guard case .features(let page) = try store.features.query(query, service: service, layer: layer.definition.id),
                !page.features.isEmpty
            else { return }
            let columns = Dictionary(page.fields.enumerated().map { ($1.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
            guard let idColumn = columns[idField.lowercased()],
                let pageLast = page.features.last.flatMap({ idColumn < $0.attributes.count ? $0.attributes[idColumn].int64Value : nil })
            else { return }
            for feature in page.features { try body(Feature(columns: columns, attributes: feature.attributes, geometry: feature.geometry)) }
            read += page.features.count
            last = pageLast
        }
    }
}
