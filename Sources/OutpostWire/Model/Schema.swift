/// Esri field types. The raw value is the wire spelling.
public enum EsriFieldType: String, Sendable, Equatable, CaseIterable {
    case oid = "esriFieldTypeOID"
    case globalID = "esriFieldTypeGlobalID"
    case string = "esriFieldTypeString"
    case integer = "esriFieldTypeInteger"
    case smallInteger = "esriFieldTypeSmallInteger"
    case double = "esriFieldTypeDouble"
    case single = "esriFieldTypeSingle"
    case date = "esriFieldTypeDate"
    case guid = "esriFieldTypeGUID"
    case blob = "esriFieldTypeBlob"
    case xml = "esriFieldTypeXML"

    /// The SQLite storage class a column of this type uses. Dates are epoch milliseconds (UTC).
    public var sqliteType: String {
        switch self {
        case .oid, .integer, .smallInteger, .date: "INTEGER"
        case .double, .single: "REAL"
        case .string, .globalID, .guid, .xml: "TEXT"
        case .blob: "BLOB"
        }
    }

    public var isNumeric: Bool {
        switch self {
        case .oid, .integer, .smallInteger, .double, .single, .date: true
        default: false
        }
    }

    public var isInteger: Bool {
        switch self {
        case .oid, .integer, .smallInteger: true
        default: false
        }
    }

    public var isText: Bool {
        switch self {
        case .string, .globalID, .guid, .xml: true
        default: false
        }
    }
}

/// One attribute field of a layer or table.
public struct FieldDefinition: Sendable, Equatable {
    public var name: String
    public var type: EsriFieldType
    public var alias: String
    public var length: Int?
    public var nullable: Bool
    public var editable: Bool
    public var defaultValue: JSONValue
    /// ArcGIS's domain JSON, kept as given; `fieldDomain` is what it means.
    public var domain: JSONValue { didSet { fieldDomain = FieldDomain(json: domain) } }
    /// The domain `domain` describes, parsed once when it is set: every edited value is
    /// checked against it (`FieldValue.coerce`).
    public private(set) var fieldDomain: FieldDomain?

    public init(
        name: String, type: EsriFieldType, alias: String? = nil, length: Int? = nil,
        nullable: Bool = true, editable: Bool = true, defaultValue: JSONValue = .null, domain: JSONValue = .null
    ) {
        self.name = name
        self.type = type
        self.alias = alias ?? name
        self.length = length ?? (type == .string ? 255 : (type == .globalID || type == .guid ? 38 : nil))
        self.nullable = nullable
        self.editable = editable
        self.defaultValue = defaultValue
        self.domain = domain
        fieldDomain = FieldDomain(json: domain)
    }
}

/// Esri geometry types. Tables have none.
public enum EsriGeometryType: String, Sendable, Equatable, CaseIterable {
    case point = "esriGeometryPoint"
    case multipoint = "esriGeometryMultipoint"
    case polyline = "esriGeometryPolyline"
    case polygon = "esriGeometryPolygon"
    case envelope = "esriGeometryEnvelope"

    /// Accepts the wire spelling, case-insensitively, and the short names (`point`, `polygon`, …).
    public init?(lenient text: String) {
        let lowered = text.lowercased()
        if let match = Self.allCases.first(where: { $0.rawValue.lowercased() == lowered || $0.shortName == lowered }) {
            self = match
        } else {
            return nil
        }
    }

    public var shortName: String {
        switch self {
        case .point: "point"
        case .multipoint: "multipoint"
        case .polyline: "polyline"
        case .polygon: "polygon"
        case .envelope: "envelope"
        }
    }
}

/// A spatial reference by well-known id.
///
/// ArcGIS names Web Mercator 102100 (with `latestWkid` 3857); the store and PROJ use EPSG
/// codes, so `epsg` maps Esri's legacy ids to their EPSG equivalents.
public struct SpatialReference: Sendable, Equatable, Hashable {
    public var wkid: Int

    public init(wkid: Int) { self.wkid = wkid }

    public static let wgs84 = SpatialReference(wkid: 4326)
    public static let webMercator = SpatialReference(wkid: 102100)

    /// The EPSG code PROJ and SpatiaLite know this reference by.
    public var epsg: Int {
        switch wkid {
        case 102100, 102113, 900913: 3857
        default: wkid
        }
    }

    /// The latest wkid ArcGIS reports alongside a legacy one.
    public var latestWkid: Int { epsg }

    public var json: JSONValue {
        wkid == latestWkid
            ? ["wkid": .int(Int64(wkid)), "latestWkid": .int(Int64(latestWkid))]
            : ["wkid": .int(Int64(wkid)), "latestWkid": .int(Int64(latestWkid))]
    }

    /// Parses `4326`, `{"wkid":4326}` or `{"latestWkid":3857}`.
    public init?(json: JSONValue) {
        switch json {
        case .int(let i): self.init(wkid: Int(i))
        case .double(let d):
            // Infinite, NaN, fractional or beyond Int (`1e300`): no wkid, and no trap converting it.
            guard let wkid = Int(exactly: d) else { return nil }
            self.init(wkid: wkid)
        case .string(let s):
            if let i = Int(s.trimmingWhitespace()) {
                self.init(wkid: i)
            } else if let v = try? JSONParser.parse(s), case .object = v {
                self.init(json: v)
            } else {
                return nil
            }
        case .object(let o):
            if let w = o.value(forCaseInsensitiveKey: "wkid")?.int64Value {
                self.init(wkid: Int(w))
            } else if let w = o.value(forCaseInsensitiveKey: "latestWkid")?.int64Value {
                self.init(wkid: Int(w))
            } else {
                return nil
            }
        default: return nil
        }
    }

    /// Two references that denote the same coordinate system.
    public func isEquivalent(to other: SpatialReference) -> Bool { epsg == other.epsg }
}

/// An axis-aligned extent.
public struct Envelope: Sendable, Equatable {
    public var xmin: Double
    public var ymin: Double
    public var xmax: Double
    public var ymax: Double

    public init(xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
    }

    public var isEmpty: Bool { xmin > xmax || ymin > ymax }
    public var width: Double { xmax - xmin }
    public var height: Double { ymax - ymin }
    public var area: Double { isEmpty ? 0 : width * height }

    public static let empty = Envelope(xmin: .infinity, ymin: .infinity, xmax: -.infinity, ymax: -.infinity)

    public mutating func expand(x: Double, y: Double) {
        xmin = Swift.min(xmin, x)
        ymin = Swift.min(ymin, y)
        xmax = Swift.max(xmax, x)
        ymax = Swift.max(ymax, y)
    }

    public mutating func expand(_ other: Envelope) {
        guard !other.isEmpty else { return }
        xmin = Swift.min(xmin, other.xmin)
        ymin = Swift.min(ymin, other.ymin)
        xmax = Swift.max(xmax, other.xmax)
        ymax = Swift.max(ymax, other.ymax)
    }

    public func intersects(_ other: Envelope) -> Bool {
        !isEmpty && !other.isEmpty && xmin <= other.xmax && xmax >= other.xmin && ymin <= other.ymax && ymax >= other.ymin
    }

    public func intersection(_ other: Envelope) -> Envelope {
        Envelope(
            xmin: Swift.max(xmin, other.xmin), ymin: Swift.max(ymin, other.ymin),
            xmax: Swift.min(xmax, other.xmax), ymax: Swift.min(ymax, other.ymax))
    }

    public func contains(_ other: Envelope) -> Bool {
        xmin <= other.xmin && ymin <= other.ymin && xmax >= other.xmax && ymax >= other.ymax
    }

    public func json(spatialReference: SpatialReference?) -> JSONValue {
        var object: JSONObject =
            isEmpty
            ? ["xmin": .null, "ymin": .null, "xmax": .null, "ymax": .null]
            : ["xmin": .double(xmin), "ymin": .double(ymin), "xmax": .double(xmax), "ymax": .double(ymax)]
        if let spatialReference { object["spatialReference"] = spatialReference.json }
        return .object(object)
    }
}

/// The spatial relationship of a query.
public enum SpatialRelationship: String, Sendable, Equatable, CaseIterable {
    case intersects = "esriSpatialRelIntersects"
    case envelopeIntersects = "esriSpatialRelEnvelopeIntersects"
    case contains = "esriSpatialRelContains"
    case within = "esriSpatialRelWithin"
    case crosses = "esriSpatialRelCrosses"
    case overlaps = "esriSpatialRelOverlaps"
    case touches = "esriSpatialRelTouches"
    case indexIntersects = "esriSpatialRelIndexIntersects"

    public init?(lenient text: String) {
        let lowered = text.lowercased()
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == lowered }) else { return nil }
        self = match
    }
}

/// A relationship between two layers or tables of one service.
public struct RelationshipDefinition: Sendable, Equatable {
    public enum Cardinality: String, Sendable, Equatable {
        case oneToOne = "esriRelCardinalityOneToOne"
        case oneToMany = "esriRelCardinalityOneToMany"
        case manyToMany = "esriRelCardinalityManyToMany"
    }

    public enum Role: String, Sendable, Equatable {
        case origin = "esriRelRoleOrigin"
        case destination = "esriRelRoleDestination"
    }

    public var id: Int
    public var name: String
    public var relatedTableId: Int
    public var cardinality: Cardinality
    public var role: Role
    /// The key field in this layer (the origin's primary key or the destination's foreign key).
    public var keyField: String
    public var composite: Bool

    public init(
        id: Int, name: String, relatedTableId: Int, cardinality: Cardinality, role: Role,
        keyField: String, composite: Bool = false
    ) {
        self.id = id
        self.name = name
        self.relatedTableId = relatedTableId
        self.cardinality = cardinality
        self.role = role
        self.keyField = keyField
        self.composite = composite
    }
}
