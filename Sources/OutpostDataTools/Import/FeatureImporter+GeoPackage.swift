import Foundation
import GRDB
import OutpostGeoPackage
import OutpostGeometry
import OutpostStorage
import OutpostWire

extension FeatureImporter {
    // MARK: GeoPackage

    /// Imports every feature and attribute table of the GeoPackage at `path` as one service: a
    /// layer or table each, but for attachment tables, whose rows become their parents'
    /// attachments; columns named GlobalID that hold GUIDs keep them, and `catalog`'s
    /// relationship classes (a File Geodatabase's) are kept between the layers.
    public func importGeoPackage(at path: String, options: Options, catalog: GeodatabaseCatalog = GeodatabaseCatalog()) throws -> StoredService {
        var configuration = Configuration()
        configuration.readonly = true
        let source = try DatabaseQueue(path: path, configuration: configuration)
        let sourceTables: [SourceTable] = try source.read { db in
            let contents = try Row.fetchAll(
                db,
                sql:
                    "SELECT table_name, data_type, srs_id FROM gpkg_contents WHERE data_type IN ('features', 'attributes') ORDER BY data_type DESC, table_name"
            )
            return try contents.map { row in
                let name: String = row["table_name"]
                let dataType: String = row["data_type"]
                var geometryColumn: String?
                var geometryType: EsriGeometryType?
                var wkid = 4326
                if dataType == "features",
                    let g = try Row.fetchOne(
                        db, sql: "SELECT column_name, geometry_type_name, srs_id FROM gpkg_geometry_columns WHERE table_name = ?", arguments: [name])
                {
                    geometryColumn = g["column_name"]
                    let typeName = (g["geometry_type_name"] as String).uppercased()
                    geometryType =
                        switch typeName {
                        case "POINT": .point
                        case "MULTIPOINT": .multipoint
                        case "LINESTRING", "MULTILINESTRING", "CURVE", "MULTICURVE": .polyline
                        case "POLYGON", "MULTIPOLYGON", "SURFACE", "MULTISURFACE", "CURVEPOLYGON": .polygon
                        default: nil
                        }
                    if geometryType == nil, typeName == "GEOMETRY" || typeName == "GEOMETRYCOLLECTION" {
                        // A generic column (GDAL writes GEOMETRY for mixed Polygon/MultiPolygon):
                        // infer the Esri type from the rows, as for GeoJSON.
                        geometryType = try Self.inferGeometryType(table: name, column: g["column_name"], db: db)
                    }
                    let srsID: Int = g["srs_id"]
                    if let srs = try Row.fetchOne(
                        db, sql: "SELECT organization, organization_coordsys_id FROM gpkg_spatial_ref_sys WHERE srs_id = ?", arguments: [srsID]),
                        (srs["organization"] as String?)?.uppercased() == "EPSG"
                    {
                        wkid = srs["organization_coordsys_id"]
                    } else if srsID > 0 {
                        wkid = srsID
                    }
                }
                let columns = try Row.fetchAll(db, sql: "SELECT name, type, pk FROM pragma_table_info(?)", arguments: [name]).map {
                    (name: $0["name"] as String, declared: ($0["type"] as String?) ?? "", isPrimaryKey: ($0["pk"] as Int) > 0)
                }
                return SourceTable(
                    name: name, dataType: dataType, geometryColumn: geometryColumn, geometryType: geometryType, wkid: wkid, columns: columns)
            }
        }
        let attachmentTables = AttachmentTable.find(in: sourceTables, catalog: catalog, warn: options.warn)
        let tables = sourceTables.filter { table in !attachmentTables.contains { $0.table == table.name } }
        guard !tables.isEmpty else { throw StoreError.importFailed("\(path) has no feature or attribute tables") }
        let globalIdColumns = try source.read { db in try tables.map { try Self.globalIdColumn(of: $0, db: db) } }
        // Each attachment table with the index of a parent whose GlobalIDs are kept.
        var linked: [(attachments: AttachmentTable, parent: Int)] = []
        for attachments in attachmentTables {
            if let parent = tables.firstIndex(where: { $0.name == attachments.parent }), globalIdColumns[parent] != nil {
                linked.append((attachments, parent))
            } else {
                options.warn("\(attachments.table): \(attachments.parent) has no GlobalIDs to link its attachments to; they are not imported")
            }
        }
        var layers: [LayerDefinition] = []
        var mappings: [[(source: String, field: FieldDefinition)]] = []
        for (index, table) in tables.enumerated() {
            if table.dataType == "features" && table.geometryType == nil {
                throw StoreError.importFailed("table \(table.name) has an unsupported or mixed geometry type")
            }
            var names = FieldNamer()
            var mapping: [(source: String, field: FieldDefinition)] = []
            for column in table.columns where !column.isPrimaryKey && column.name != table.geometryColumn && column.name != globalIdColumns[index] {
                let declared = column.declared.uppercased()
                let type: EsriFieldType
                var length: Int?
                if declared.hasPrefix("TEXT") || declared.hasPrefix("VARCHAR") || declared.hasPrefix("CHAR") {
                    type = .string
                    if let open = declared.firstIndex(of: "("), let close = declared.firstIndex(of: ")"),
                        let n = Int(declared[declared.index(after: open)..<close])
                    {
                        length = n
                    }
                } else if ["TINYINT", "SMALLINT", "BOOLEAN"].contains(declared) {
                    type = .smallInteger
                } else if ["INT", "INTEGER", "MEDIUMINT"].contains(declared) {
                    type = .integer
                } else if declared == "BIGINT" {
                    type = .double
                } else if ["FLOAT", "DOUBLE", "REAL"].contains(declared) {
                    type = .double
                } else if declared == "DATE" || declared == "DATETIME" {
                    type = .date
                } else if declared.hasPrefix("BLOB") {
                    type = .blob
                } else {
                    type = .string
                }
                mapping.append((column.name, FieldDefinition(name: names.name(for: column.name), type: type, alias: column.name, length: length)))
            }
            // Domains (the schema extension's constraints, as GDAL writes a source's field domains).
            let domains = try source.read { db in
                try GeoPackageDomains.read(table: table.name, db: db) { column in mapping.first { $0.source == column }?.field.type }
            }
            for index in mapping.indices {
                if let domain = domains[mapping[index].source] { mapping[index].field.domain = domain.json }
            }
            let fields = LayerDefinition.withSystemFields(mapping.map(\.field))
            layers.append(
                LayerDefinition(
                    id: index, name: table.name, kind: table.dataType == "features" ? .featureLayer : .table,
                    geometryType: table.geometryType, spatialReference: SpatialReference(wkid: table.wkid), fields: fields,
                    hasAttachments: (options.hasAttachments && table.dataType == "features") || linked.contains { $0.parent == index },
                    maxRecordCount: options.maxRecordCount))
            mappings.append(mapping)
        }
        let fieldNames = mappings.map { Dictionary($0.map { ($0.source.lowercased(), $0.field.name) }, uniquingKeysWith: { first, _ in first }) }
        Self.relate(&layers, sources: tables.map(\.name), fieldNames: fieldNames, catalog: catalog, warn: options.warn)
        for (index, table) in tables.enumerated() {
            layers[index].subtypes = catalog.layerSubtypes(of: table.name, layer: layers[index], fieldNames: fieldNames[index], warn: options.warn)
        }
        let serviceWkid = tables.first(where: { $0.dataType == "features" })?.wkid ?? 4326
        let service = ServiceDefinition(
            name: options.serviceName, description: options.description, isVersioned: options.isVersioned, capabilities: options.capabilities,
            spatialReference: SpatialReference(wkid: serviceWkid), maxRecordCount: options.maxRecordCount,
            layers: layers)
        try store.schema.createService(service)
        do {
            for (index, table) in tables.enumerated() {
                let mapping = mappings[index]
                var select = mapping.map { $0.source.quotedDatabaseIdentifier }
                select.append(table.geometryColumn?.quotedDatabaseIdentifier ?? "NULL")
                select.append(globalIdColumns[index]?.quotedDatabaseIdentifier ?? "NULL")
                let globalIdField = layers[index].globalIdField
                // Each row is written as the cursor reads it.
                try source.read { db in
                    let expected = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.name.quotedDatabaseIdentifier)") ?? 0
                    let cursor = try Row.fetchCursor(db, sql: "SELECT \(select.joined(separator: ", ")) FROM \(table.name.quotedDatabaseIdentifier)")
                    var loaded = 0
                    options.progress(ImportProgress(layer: table.name, loaded: 0, total: expected))
                    try store.edits.load(service: service.name, layer: index, expectedCount: expected) { emit in
                        while let row = try cursor.next() {
                            var attributes: [String: JSONValue] = [:]
                            for (i, entry) in mapping.enumerated() {
                                let value = GeoPackageValue.json(row[i] as DatabaseValue, isDate: false) ?? .null
                                if !value.isNull { attributes[entry.field.name] = value }
                            }
                            var geometry: OGCGeometry?
                            if table.geometryColumn != nil, let blob: Data = row[mapping.count] {
                                geometry = try GeoPackageBinary.decode([UInt8](blob)).geometry
                            }
                            if let globalId: String = row[mapping.count + 1] { attributes[globalIdField] = .string(globalId) }
                            try emit(FeatureRow(attributes: attributes, geometry: geometry))
                            loaded += 1
                            if loaded & 0xFFFF == 0 { options.progress(ImportProgress(layer: table.name, loaded: loaded, total: expected)) }
                        }
                    }
                    options.progress(ImportProgress(layer: table.name, loaded: expected, total: expected))
                }
            }
            for (attachments, parent) in linked {
                try loadAttachments(attachments, service: service.name, layer: parent, source: source, warn: options.warn)
            }
        } catch {
            try? store.schema.deleteService(named: service.name, refusingWhileInUse: false)
            throw error
        }
        return try store.service(named: service.name)
    }
}
