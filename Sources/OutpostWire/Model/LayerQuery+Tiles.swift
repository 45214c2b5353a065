/// `resultType`: which of a layer's maxima sizes a query's page.
public enum QueryResultType: String, Sendable, Equatable, CaseIterable {
    /// `maxRecordCount`.
    case none
    /// `standardMaxRecordCount`: one query for the whole extent.
    case standard
    /// `tileMaxRecordCount`: one query per tile of a client's virtual tiling scheme.
    case tile
}

extension LayerDefinition {
    /// The page of a `resultType=standard` query. Outpost has one bound per layer, its
    /// `maxRecordCount`, so the three maxima are equal; `maxRecordCountFactor` raises them.
    public var standardMaxRecordCount: Int { maxRecordCount }

    /// The page of a `resultType=tile` query (docs/decisions.md, "Feature tiles").
    public var tileMaxRecordCount: Int { maxRecordCount }

    /// The maximum that sizes a page of `type`.
    public func maxRecordCount(for type: QueryResultType) -> Int {
        switch type {
        case .none: maxRecordCount
        case .standard: standardMaxRecordCount
        case .tile: tileMaxRecordCount
        }
    }
}

extension LayerQuery {
    /// ArcGIS's bound on `maxRecordCountFactor`.
    public static let maximumRecordCountFactor = 5

    /// The most features one answer holds: the layer's maximum for `resultType` times
    /// `maxRecordCountFactor`, capped by `resultRecordCount`.
    public func pageSize(for layer: LayerDefinition) -> Int {
        let (product, overflow) = layer.maxRecordCount(for: resultType).multipliedReportingOverflow(by: maxRecordCountFactor)
        let limit = overflow ? Int(Int32.max) : min(product, Int(Int32.max))
        return min(resultRecordCount ?? limit, limit)
    }

    /// The reference an answer's geometries are in: `outSR`, else WGS 84 for GeoJSON (RFC 7946:
    /// `defaultSR` does not change it), else `defaultSR`, else the layer's.
    public func answerSpatialReference(for layer: LayerDefinition) -> SpatialReference {
        outSR ?? (format.isGeoJSON ? .wgs84 : defaultSR ?? layer.spatialReference)
    }

    /// The grid an answer's geometries are quantized on; nil without `quantizationParameters`,
    /// without geometries, or for GeoJSON (which has no `transform`). `coordinateSystem` says
    /// what a reference measures (`CoordinateSystemCatalog.coordinateSystem(of:)`), asked only
    /// of the answer's reference and only when there is a grid to make.
    public func quantizationGrid(
        for layer: LayerDefinition, coordinateSystem: (SpatialReference) -> CoordinateSystem
    ) throws(ArcGISError) -> QuantizationGrid? {
        guard let quantization, !format.isGeoJSON, returnGeometry, !returnDistinctValues, layer.geometryType != nil else { return nil }
        let reference = answerSpatialReference(for: layer)
        return try quantization.grid(outSR: reference, coordinateSystem: coordinateSystem(reference))
    }

    /// Whether a page that would exceed the transfer limit is answered without features, so a
    /// tiling client splits the tile instead of drawing part of it (`returnExceededLimitFeatures=false`
    /// applies to `resultType=tile`, as the reference says).
    public var answersNothingOverTheLimit: Bool { resultType == .tile && !returnExceededLimitFeatures }

    /// `resultType`, `maxRecordCountFactor`, `returnExceededLimitFeatures`,
    /// `returnDistinctValues`, `defaultSR` and `quantizationParameters`.
    mutating func parseTileParameters(_ p: RequestParameters) throws(ArcGISError) {
        if let raw = p.string("resultType") {
            guard let type = QueryResultType.allCases.first(where: { $0.rawValue == raw.lowercased() }) else {
                throw .invalidParameter("resultType", "expected none, standard or tile, got '\(raw)'")
            }
            resultType = type
        }
        if let factor = try p.int("maxRecordCountFactor") {
            guard (1...Self.maximumRecordCountFactor).contains(factor) else {
                throw .invalidParameter("maxRecordCountFactor", "must be 1 to \(Self.maximumRecordCountFactor), got \(factor)")
            }
            maxRecordCountFactor = factor
        }
        returnExceededLimitFeatures = try p.bool("returnExceededLimitFeatures", default: true)
        returnDistinctValues = try p.bool("returnDistinctValues", default: false)
        if let raw = p.string("defaultSR") {
            guard let sr = SpatialReference(json: .string(raw)) else { throw .invalidParameter("defaultSR", "expected a wkid") }
            defaultSR = sr
            geometry?.defaultSR = sr
        }
        if let json = try p.json("quantizationParameters") {
            // ArcGIS falls back on maxAllowableOffset when the parameters name no tolerance.
            let offset = try p.double("maxAllowableOffset")
            quantization = try QuantizationParameters.parse(json, maxAllowableOffset: offset)
        }
    }
}
