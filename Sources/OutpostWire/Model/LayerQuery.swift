/// The output formats a layer query answers in.
public enum ResponseFormat: String, Sendable, Equatable {
    case json, pjson, geojson, pgeojson, html

    public var isPretty: Bool { self == .pjson || self == .pgeojson }
    public var isGeoJSON: Bool { self == .geojson || self == .pgeojson }

    /// `f`, defaulting to JSON; `html` pages are rendered by the server from the JSON answer.
    public static func parse(_ parameters: RequestParameters) throws(ArcGISError) -> ResponseFormat {
        guard let raw = parameters.string("f") else { return .json }
        guard let format = ResponseFormat(rawValue: raw.lowercased()) else {
            throw .invalidParameter("f", "expected json, pjson or geojson")
        }
        return format == .html ? .json : format
    }
}

/// One `outStatistics` entry.
public struct OutStatistic: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case count, sum, min, max, avg, stddev, `var`
    }

    public var kind: Kind
    public var field: String
    public var outName: String

    /// An output name is an identifier: it names a column of the answer and may be ordered by.
    public static func isValidOutName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, name.unicodeScalars.count <= 64,
            first.properties.isAlphabetic || first == "_"
        else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    public init(kind: Kind, field: String, outName: String) {
        self.kind = kind
        self.field = field
        self.outName = outName
    }
}

/// A parsed layer `query` request (§10.3 of the sync reference).
public struct LayerQuery: Sendable, Equatable {
    public var whereClause: String?
    public var objectIds: [Int64]?
    /// nil: only the OBJECTID field; `["*"]`: every field.
    public var outFields: [String]?
    public var returnGeometry = true
    public var geometry: QueryGeometry?
    public var spatialRelationship: SpatialRelationship = .intersects
    public var outSR: SpatialReference?
    public var resultOffset: Int?
    public var resultRecordCount: Int?
    public var orderBy: [(field: String, ascending: Bool)] = []
    public var returnCountOnly = false
    public var returnIdsOnly = false
    public var returnExtentOnly = false
    public var outStatistics: [OutStatistic] = []
    /// `groupByFieldsForStatistics`: one statistics row per distinct combination.
    public var groupByFields: [String] = []
    /// `having`: a condition on aggregates of the groups (`COUNT(OBJECTID) > 10`).
    public var having: String?
    public var format: ResponseFormat = .json
    /// Which of the layer's maxima sizes the page (`resultType`).
    public var resultType: QueryResultType = .none
    /// `maxRecordCountFactor`: the page is that maximum times this (1…5).
    public var maxRecordCountFactor = 1
    /// With `resultType=tile`, false answers no features when more match than the page holds.
    public var returnExceededLimitFeatures = true
    /// One row per distinct combination of the `outFields` values.
    public var returnDistinctValues = false
    /// Integer coordinates on a grid (`quantizationParameters`), for Esri JSON answers.
    public var quantization: QuantizationParameters?
    /// `defaultSR`: the answer's reference when `outSR` is absent (not for GeoJSON, which is
    /// WGS 84), and the query geometry's when nothing else names one (`QueryGeometry.defaultSR`).
    public var defaultSR: SpatialReference?

    public init() {}

    public static func == (lhs: LayerQuery, rhs: LayerQuery) -> Bool {
        lhs.whereClause == rhs.whereClause && lhs.objectIds == rhs.objectIds && lhs.outFields == rhs.outFields
            && lhs.returnGeometry == rhs.returnGeometry && lhs.geometry == rhs.geometry
            && lhs.spatialRelationship == rhs.spatialRelationship && lhs.outSR == rhs.outSR
            && lhs.resultOffset == rhs.resultOffset && lhs.resultRecordCount == rhs.resultRecordCount
            && lhs.orderBy.map(\.field) == rhs.orderBy.map(\.field) && lhs.orderBy.map(\.ascending) == rhs.orderBy.map(\.ascending)
            && lhs.returnCountOnly == rhs.returnCountOnly && lhs.returnIdsOnly == rhs.returnIdsOnly
            && lhs.returnExtentOnly == rhs.returnExtentOnly && lhs.outStatistics == rhs.outStatistics && lhs.format == rhs.format
            && lhs.groupByFields == rhs.groupByFields && lhs.having == rhs.having && lhs.resultType == rhs.resultType
            && lhs.maxRecordCountFactor == rhs.maxRecordCountFactor && lhs.returnExceededLimitFeatures == rhs.returnExceededLimitFeatures
            && lhs.returnDistinctValues == rhs.returnDistinctValues && lhs.quantization == rhs.quantization
            && lhs.defaultSR == rhs.defaultSR
    }
}

/// The spatial filter of a query, before it is parsed into a geometry (the geometry codec
/// lives in another module; the wire model only carries the text and its reference).
public struct QueryGeometry: Sendable, Equatable {
    public var text: String
    public var geometryType: EsriGeometryType?
    public var inSR: SpatialReference?
    /// `defaultSR`: the reference when neither `inSR` nor the geometry's JSON names one.
    public var defaultSR: SpatialReference?

    public init(text: String, geometryType: EsriGeometryType?, inSR: SpatialReference?, defaultSR: SpatialReference? = nil) {
        self.text = text
        self.geometryType = geometryType
        self.inSR = inSR
        self.defaultSR = defaultSR
    }

    /// The reference the geometry is read in: `inSR`, else the one its JSON names, else
    /// `defaultSR`, else the layer's.
    public func spatialReference(named inJSON: SpatialReference?, layer: SpatialReference) -> SpatialReference {
        inSR ?? inJSON ?? defaultSR ?? layer
    }
}

extension LayerQuery {
    /// Parses the request parameters. Unknown parameters are ignored, as ArcGIS does;
    /// malformed known ones are an error.
    public static func parse(_ p: RequestParameters) throws(ArcGISError) -> LayerQuery {
        var q = LayerQuery()
        q.format = try ResponseFormat.parse(p)
        q.whereClause = p.string("where")
        q.objectIds = try p.intList("objectIds")
        if let fields = p.nameList("outFields") { q.outFields = fields.isEmpty ? nil : fields }
        q.returnGeometry = try p.bool("returnGeometry", default: true)
        if let text = p.string("geometry") {
            var type: EsriGeometryType?
            if let raw = p.string("geometryType") {
                guard let parsed = EsriGeometryType(lenient: raw) else {
                    throw .invalidParameter("geometryType", "unknown geometry type '\(raw)'")
                }
                type = parsed
            }
            var inSR: SpatialReference?
            if let raw = p.string("inSR") {
                guard let sr = SpatialReference(json: .string(raw)) else { throw .invalidParameter("inSR", "expected a wkid") }
                inSR = sr
            }
            q.geometry = QueryGeometry(text: text, geometryType: type, inSR: inSR)
        }
        if let raw = p.string("spatialRel") {
            guard let rel = SpatialRelationship(lenient: raw) else {
                throw .invalidParameter("spatialRel", "unknown spatial relationship '\(raw)'")
            }
            q.spatialRelationship = rel
        }
        if let raw = p.string("outSR") {
            guard let sr = SpatialReference(json: .string(raw)) else { throw .invalidParameter("outSR", "expected a wkid") }
            q.outSR = sr
        }
        if let offset = try p.int("resultOffset") {
            guard offset >= 0 else { throw .invalidParameter("resultOffset", "must not be negative") }
            q.resultOffset = offset
        }
        if let count = try p.int("resultRecordCount") {
            guard count >= 0 else { throw .invalidParameter("resultRecordCount", "must not be negative") }
            q.resultRecordCount = count
        }
        if let order = p.nameList("orderByFields") {
            for item in order {
                let words = item.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                guard (1...2).contains(words.count) else { throw .invalidParameter("orderByFields", "'\(item)' is not 'field [ASC|DESC]'") }
                var ascending = true
                if words.count == 2 {
                    switch words[1].uppercased() {
                    case "ASC": ascending = true
                    case "DESC": ascending = false
                    default: throw .invalidParameter("orderByFields", "'\(words[1])' is not ASC or DESC")
                    }
                }
                q.orderBy.append((words[0], ascending))
            }
        }
        q.returnCountOnly = try p.bool("returnCountOnly", default: false)
        q.returnIdsOnly = try p.bool("returnIdsOnly", default: false)
        q.returnExtentOnly = try p.bool("returnExtentOnly", default: false)
        if let stats = try p.json("outStatistics") {
            guard case .array(let items) = stats else { throw .invalidParameter("outStatistics", "expected a JSON array") }
            for item in items {
                guard let type = item.objectValue?.value(forCaseInsensitiveKey: "statisticType")?.stringValue,
                    let kind = OutStatistic.Kind(rawValue: type.lowercased()),
                    let field = item.objectValue?.value(forCaseInsensitiveKey: "onStatisticField")?.stringValue
                else {
                    throw .invalidParameter(
                        "outStatistics", "each entry needs statisticType (count, sum, min, max, avg, stddev, var) and onStatisticField")
                }
                let outName =
                    item.objectValue?.value(forCaseInsensitiveKey: "outStatisticFieldName")?.stringValue
                    ?? "\(kind.rawValue)_\(field)"
                guard OutStatistic.isValidOutName(outName) else {
                    throw .invalidParameter("outStatistics", "outStatisticFieldName '\(outName)' must be letters, digits and '_' (at most 64)")
                }
                q.outStatistics.append(OutStatistic(kind: kind, field: field, outName: outName))
            }
        }
        q.groupByFields = p.nameList("groupByFieldsForStatistics") ?? []
        q.having = p.string("having").flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        if q.outStatistics.isEmpty && (!q.groupByFields.isEmpty || q.having != nil) {
            throw .invalidParameter(q.having != nil ? "having" : "groupByFieldsForStatistics", "needs outStatistics")
        }
        try q.parseTileParameters(p)
        return q
    }
}
