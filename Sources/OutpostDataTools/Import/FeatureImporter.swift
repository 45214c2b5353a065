import Foundation
import GRDB
import OutpostGeoPackage
import OutpostGeometry
import OutpostStorage
import OutpostWire

/// Imports GeoJSON and GeoPackage files as services.
///
/// A GeoJSON FeatureCollection becomes a service with one layer; a GeoPackage becomes a
/// service with one layer per feature table and one table per attribute table. Field types
/// are inferred from the data (GeoJSON) or mapped from the declared column types
/// (GeoPackage); names are made ArcGIS-safe. Any backend takes them.
public struct FeatureImporter<Backend: SyncBackend> {
    public typealias Options = FeatureImportOptions

    public let store: Backend

    public init(store: Backend) { self.store = store }

    @discardableResult
    public func importFile(at path: String, options: Options) async throws -> StoredService {
        let lowered = path.lowercased()
        if lowered.hasSuffix(".gpkg") { return try importGeoPackage(at: path, options: options) }
        if lowered.hasSuffix(".geojson") || lowered.hasSuffix(".json") { return try importGeoJSON(at: path, options: options) }
        guard GDALSource.handles(path) else { throw StoreError.importFailed("unsupported file type: \(path)") }
        // Everything else through GDAL, by way of a GeoPackage in a scratch folder.
        try FileManager.default.createDirectory(atPath: options.scratchDirectory, withIntermediateDirectories: true)
        let scratch = (options.scratchDirectory as NSString).appendingPathComponent("import-\(UUID().uuidString)")
        let converted = scratch + ".gpkg"
        defer { try? FileManager.default.removeItem(atPath: converted) }
        let catalog =
            GDALSource.isFileGeodatabase(path)
            ? try await GDALSource.geodatabaseCatalog(path, scratch: scratch + "-items.gpkg") : GeodatabaseCatalog()
        let progress = options.progress
        let label = "GDAL " + URL(fileURLWithPath: path).lastPathComponent
        try await GDALSource.convert(path, to: converted, srs: options.srs) {
            progress(ImportProgress(layer: label, loaded: $0, total: 100, isPercent: true))
        }
        return try importGeoPackage(at: converted, options: options, catalog: catalog)
    }

    // MARK: GeoJSON

    public func importGeoJSON(at path: String, options: Options) throws -> StoredService {
        // Mapped, not read: each pass hands back the pages behind it, so memory stays flat
        // in the file's size.
        let file = try MappedFile(path: path)
        var inference = SchemaInference()
        var wkid = 4326
        // Pass 1: infer the schema, one feature in memory at a time.
        let header: JSONValue
        do {
            header = try JSONParser.parseStreaming(buffer: file.buffer, arrayKey: "features") { feature, end in
                try inference.observe(feature)
                file.release(upTo: end)
            }
        } catch let error as JSONParser.Error {
            throw StoreError.importFailed("\(path) is not valid JSON: \(error.description)")
        }
        file.releaseAll()
        guard header["type"]?.stringValue == "FeatureCollection" else {
            throw StoreError.importFailed("\(path) is not a GeoJSON FeatureCollection")
        }
        if let name = header["crs"]?["properties"]?["name"]?.stringValue, let code = Self.epsgCode(fromCRSName: name) {
            wkid = code
        }
        let baseName = options.layerName ?? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let layer = try inference.layerDefinition(id: 0, name: baseName, wkid: wkid, options: options)
        let service = ServiceDefinition(
            name: options.serviceName, description: options.description, isVersioned: options.isVersioned, capabilities: options.capabilities,
            spatialReference: SpatialReference(wkid: wkid), maxRecordCount: options.maxRecordCount,
            layers: [layer])
        let stored = try store.schema.createService(service)
        // Pass 2: convert and load, each row written as it is read.
        do {
            try store.edits.load(service: service.name, layer: 0, expectedCount: inference.featureCount) { emit in
                _ = try JSONParser.parseStreaming(buffer: file.buffer, arrayKey: "features") { feature, end in
                    try emit(try inference.row(for: feature))
                    file.release(upTo: end)
                }
            }
        } catch {
            try? store.schema.deleteService(named: service.name, refusingWhileInUse: false)
            throw error
        }
        return try store.service(named: stored.definition.name)
    }

    /// The one Esri type that holds every geometry of a generic GeoPackage column, or nil.
    static func inferGeometryType(table: String, column: String, db: Database) throws -> EsriGeometryType? {
        var families = GeometryFamilies()
        let cursor = try Data.fetchCursor(
            db,
            sql:
                "SELECT \(column.quotedDatabaseIdentifier) FROM \(table.quotedDatabaseIdentifier) WHERE \(column.quotedDatabaseIdentifier) IS NOT NULL"
        )
        while let blob = try cursor.next() {
            families.observe(try GeoPackageBinary.decode([UInt8](blob)).geometry)
        }
        return families.isMixed ? nil : families.esriType
    }

    static func epsgCode(fromCRSName name: String) -> Int? {
        if name.hasSuffix("CRS84") { return 4326 }
        guard let last = name.split(whereSeparator: { $0 == ":" }).last, let code = Int(last) else { return nil }
        return code
    }
}

/// Makes source column names valid, unique ArcGIS field names.
struct FieldNamer {
    private var used: Set<String> = ["objectid", "globalid", "shape"]

    mutating func name(for source: String) -> String {
        var name = String(
            source.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) ? Character(scalar) : "_"
            })
        if name.isEmpty || !(name.unicodeScalars.first!.properties.isAlphabetic) { name = "f_" + name }
        if name.count > 60 { name = String(name.prefix(60)) }
        var candidate = name
        var suffix = 2
        while used.contains(candidate.lowercased()) {
            candidate = "\(name)_\(suffix)"
            suffix += 1
        }
        used.insert(candidate.lowercased())
        return candidate
    }
}

/// Infers an Esri schema from GeoJSON features.
struct SchemaInference {
    private struct Column {
        var source: String
        var name: String
        var sawInteger = false, sawDouble = false, sawBool = false, sawString = false, sawOther = false
        var allDates = true
        var maxLength = 0
        var exceedsInt32 = false
    }

    private var columns: [Column] = []
    private var index: [String: Int] = [:]
    private var namer = FieldNamer()
    private var families = GeometryFamilies()
    private(set) var featureCount = 0
    private var fields: [FieldDefinition] = []

    mutating func observe(_ feature: JSONValue) throws {
        featureCount += 1
        guard case .object(let object) = feature else { throw StoreError.importFailed("feature \(featureCount) is not an object") }
        if let geometry = object["geometry"], !geometry.isNull {
            // Only the type is needed here; coordinates are decoded (and checked) in pass 2.
            let type = geometry["type"]?.stringValue ?? "none"
            guard families.observe(geoJSONType: type, memberCount: geometry["coordinates"]?.arrayValue?.count ?? 0) else {
                throw StoreError.importFailed("feature \(featureCount): unsupported geometry type \(type)")
            }
        }
        guard let properties = object["properties"]?.objectValue else { return }
        for (key, value) in properties {
            let position: Int
            if let existing = index[key] {
                position = existing
            } else {
                position = columns.count
                index[key] = position
                columns.append(Column(source: key, name: namer.name(for: key)))
            }
            switch value {
            case .null: break
            case .int(let i):
                columns[position].sawInteger = true
                columns[position].allDates = false
                if i > Int64(Int32.max) || i < Int64(Int32.min) { columns[position].exceedsInt32 = true }
            case .double:
                columns[position].sawDouble = true
                columns[position].allDates = false
            case .bool:
                columns[position].sawBool = true
                columns[position].allDates = false
            case .string(let s):
                columns[position].sawString = true
                columns[position].maxLength = max(columns[position].maxLength, s.count)
                if columns[position].allDates && (s.count < 10 || WhereDate.parse(s) == nil) { columns[position].allDates = false }
            default:
                columns[position].sawOther = true
                columns[position].allDates = false
                columns[position].maxLength = max(columns[position].maxLength, value.jsonText.count)
            }
        }
    }

    mutating func layerDefinition(id: Int, name: String, wkid: Int, options: FeatureImporter.Options) throws -> LayerDefinition {
        guard !families.isMixed else {
            throw StoreError.importFailed("features mix geometry kinds (\(families.names.joined(separator: ", "))); split them into files")
        }
        var userFields: [FieldDefinition] = []
        for column in columns {
            let type: EsriFieldType
            if column.sawString || column.sawOther {
                type = column.allDates && !column.sawOther && !column.sawInteger && !column.sawDouble ? .date : .string
            } else if column.sawDouble || column.exceedsInt32 {
                type = .double
            } else if column.sawInteger {
                type = .integer
            } else if column.sawBool {
                type = .smallInteger
            } else {
                type = .string
            }
            let length = type == .string ? max(255, ((column.maxLength + 255) / 256) * 256) : nil
            userFields.append(FieldDefinition(name: column.name, type: type, alias: column.source, length: length))
        }
        fields = userFields
        let geometryType = families.esriType
        return LayerDefinition(
            id: id, name: name, kind: geometryType == nil ? .table : .featureLayer, geometryType: geometryType,
            spatialReference: SpatialReference(wkid: wkid), fields: LayerDefinition.withSystemFields(userFields),
            hasAttachments: options.hasAttachments && geometryType != nil, maxRecordCount: options.maxRecordCount)
    }

    func row(for feature: JSONValue) throws -> FeatureRow {
        var attributes: [String: JSONValue] = [:]
        if let properties = feature["properties"]?.objectValue {
            for (key, value) in properties {
                guard let position = index[key], !value.isNull else { continue }
                let field = fields[position]
                switch (field.type, value) {
                case (.smallInteger, .bool(let b)): attributes[field.name] = .int(b ? 1 : 0)
                case (.string, .object), (.string, .array): attributes[field.name] = .string(value.jsonText)
                default: attributes[field.name] = value
                }
            }
        }
        var geometry: OGCGeometry?
        if let g = feature["geometry"] {
            do { geometry = try GeoJSONGeometry.decode(g) } catch { throw StoreError.importFailed("\(error)") }
        }
        return FeatureRow(attributes: attributes, geometry: geometry)
    }
}

/// The geometry kinds seen in a source, and the Esri type that holds them all.
struct GeometryFamilies {
    private var seen: Set<String> = []
    private var sawMultiPoint = false

    mutating func observe(_ geometry: OGCGeometry) {
        switch geometry {
        case .point: seen.insert("point")
        case .multiPoint(let points):
            seen.insert("point")
            if points.count > 1 { sawMultiPoint = true }
        case .lineString, .multiLineString: seen.insert("line")
        case .polygon, .multiPolygon: seen.insert("polygon")
        }
    }

    /// Observes a GeoJSON geometry by its type name; false for a type Outpost cannot store.
    mutating func observe(geoJSONType type: String, memberCount: Int) -> Bool {
        switch type {
        case "Point": seen.insert("point")
        case "MultiPoint":
            seen.insert("point")
            if memberCount > 1 { sawMultiPoint = true }
        case "LineString", "MultiLineString": seen.insert("line")
        case "Polygon", "MultiPolygon": seen.insert("polygon")
        default: return false
        }
        return true
    }

    var isMixed: Bool { seen.count > 1 }
    var names: [String] { seen.sorted() }

    /// nil when nothing was seen (a table) or the kinds are mixed.
    var esriType: EsriGeometryType? {
        guard seen.count == 1 else { return nil }
        switch seen.first {
        case "point": return sawMultiPoint ? .multipoint : .point
        case "line": return .polyline
        default: return .polygon
        }
    }
}

/// A GeoPackage table being imported.
struct SourceTable {
    var name: String
    var dataType: String
    var geometryColumn: String?
    var geometryType: EsriGeometryType?
    var wkid: Int
    var columns: [(name: String, declared: String, isPrimaryKey: Bool)]
}

/// How far an import has come: `loaded` of `total` rows of `layer`, or, for GDAL's conversion,
/// percent (`isPercent`).
public struct ImportProgress: Sendable, Equatable {
    public var layer: String
    public var loaded: Int
    public var total: Int
    public var isPercent = false

    public init(layer: String, loaded: Int, total: Int, isPercent: Bool = false) {
        self.layer = layer
        self.loaded = loaded
        self.total = total
        self.isPercent = isPercent
    }
}

/// What an import makes of a file.
public struct FeatureImportOptions: Sendable {
    public var serviceName: String
    public var isVersioned = false
    public var layerName: String?
    public var maxRecordCount = 2000
    public var hasAttachments = false
    public var description = ""
    /// The service's capabilities (without `Sync`, replicas are refused).
    public var capabilities = ServiceDefinition.defaultCapabilities
    /// Reproject a GDAL source to this EPSG code (nil: keep its spatial reference).
    public var srs: Int?
    /// A CSV source's coordinate columns, when named (the portal's `longitudeFieldName` and
    /// `latitudeFieldName`); otherwise the usual names are looked for.
    public var csvCoordinates: (longitude: String, latitude: String)?
    /// Where a GDAL source's GeoPackage is written on its way in (the store's `tmp/` from the CLI).
    public var scratchDirectory = NSTemporaryDirectory()
    /// Hears what the import leaves out or cannot link (the CLI prints it).
    public var warn: @Sendable (String) -> Void = { _ in }
    /// Hears how far the load of each table has come (the CLI's progress bar).
    public var progress: @Sendable (ImportProgress) -> Void = { _ in }

    public init(serviceName: String, isVersioned: Bool = false, layerName: String? = nil) {
        self.serviceName = serviceName
        self.isVersioned = isVersioned
        self.layerName = layerName
    }
}
