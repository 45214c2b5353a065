/// `quantizationParameters`: answer coordinates as integers on a grid (docs/decisions.md,
/// "Feature tiles"). Untrusted JSON: every number is checked before it sizes anything.
public struct QuantizationParameters: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable {
        /// For drawing: consecutive vertices in one cell are dropped.
        case view
        /// Lossless: the output reference's full resolution, every vertex kept.
        case edit
    }

    public enum OriginPosition: String, Sendable, Equatable {
        /// Rows count down from the extent's top (`ymax`).
        case upperLeft
        /// Rows count up from the extent's bottom (`ymin`).
        case lowerLeft
    }

    public var mode: Mode
    public var originPosition: OriginPosition
    /// The cell size in the output reference's units; nil: ArcGIS's 10,000 × 10,000 grid.
    public var tolerance: Double?
    public var extent: Envelope
    public var spatialReference: SpatialReference?

    public init(
        mode: Mode = .view, originPosition: OriginPosition = .upperLeft, tolerance: Double?, extent: Envelope,
        spatialReference: SpatialReference? = nil
    ) {
        self.mode = mode
        self.originPosition = originPosition
        self.tolerance = tolerance
        self.extent = extent
        self.spatialReference = spatialReference
    }

    /// The most cells a grid may have along an axis: 2^40, well inside the 2^53 integers a
    /// double (and a JavaScript client) holds exactly, however the deltas add up.
    public static let maximumCells: Double = 1_099_511_627_776

    /// Reads the parameter's JSON; `maxAllowableOffset` is the tolerance when it names none.
    public static func parse(_ json: JSONValue, maxAllowableOffset: Double? = nil) throws(ArcGISError) -> QuantizationParameters {
        func invalid(_ reason: String) -> ArcGISError { .invalidParameter("quantizationParameters", reason) }
        guard let object = json.objectValue else { throw invalid("expected a JSON object") }
        var mode = Mode.view
        if let value = object.value(forCaseInsensitiveKey: "mode"), value != .null {
            guard let text = value.stringValue, let parsed = Mode(rawValue: text.lowercased()) else { throw invalid("mode must be view or edit") }
            mode = parsed
        }
        var origin = OriginPosition.upperLeft
        if let value = object.value(forCaseInsensitiveKey: "originPosition"), value != .null {
            // The reference says lowerLeft; bottomLeft and the SDK's upper-left spellings are read too.
            switch value.stringValue?.lowercased().filter({ $0 != "-" && $0 != "_" }) {
            case "upperleft": origin = .upperLeft
            case "lowerleft", "bottomleft": origin = .lowerLeft
            default: throw invalid("originPosition must be upperLeft or lowerLeft")
            }
        }
        var tolerance: Double?
        if let value = object.value(forCaseInsensitiveKey: "tolerance"), value != .null {
            guard let number = value.doubleValue, number.isFinite, number > 0 else { throw invalid("tolerance must be a positive number") }
            tolerance = number
        } else if let offset = maxAllowableOffset, offset.isFinite, offset > 0 {
            tolerance = offset
        }
        guard let extentValue = object.value(forCaseInsensitiveKey: "extent"), let extentObject = extentValue.objectValue else {
            throw invalid("needs an extent (xmin, ymin, xmax, ymax)")
        }
        var corners: [Double] = []
        for name in ["xmin", "ymin", "xmax", "ymax"] {
            guard let number = extentObject.value(forCaseInsensitiveKey: name)?.doubleValue, number.isFinite else {
                throw invalid("the extent's \(name) must be a finite number")
            }
            corners.append(number)
        }
        let extent = Envelope(xmin: corners[0], ymin: corners[1], xmax: corners[2], ymax: corners[3])
        guard extent.xmin <= extent.xmax, extent.ymin <= extent.ymax else { throw invalid("the extent's minimum exceeds its maximum") }
        var spatialReference: SpatialReference?
        switch extentObject.value(forCaseInsensitiveKey: "spatialReference") {
        case nil, .null?: break
        case .object(let sr)?:
            guard let parsed = SpatialReference(json: .object(sr)) else { throw invalid("the extent's spatialReference needs a wkid") }
            spatialReference = parsed
        case .int(let wkid)? where (1...Int64(Int32.max)).contains(wkid):
            spatialReference = SpatialReference(wkid: Int(wkid))
        default: throw invalid("the extent's spatialReference must be a wkid or an object with one")
        }
        let parameters = QuantizationParameters(
            mode: mode, originPosition: origin, tolerance: tolerance, extent: extent, spatialReference: spatialReference)
        if mode == .view, let tolerance { try parameters.checkCells(scaleX: tolerance, scaleY: tolerance) }
        return parameters
    }

    /// The grid answers in `outSR` are quantized on; `coordinateSystem` is what `outSR`'s
    /// definition says it measures (`CoordinateSystemCatalog`). The extent must be in `outSR`
    /// (or name no reference): the tolerance is in its units.
    public func grid(outSR: SpatialReference, coordinateSystem: CoordinateSystem) throws(ArcGISError) -> QuantizationGrid {
        if let spatialReference, !spatialReference.isEquivalent(to: outSR) {
            throw .invalidParameter(
                "quantizationParameters",
                "the extent is in spatial reference \(spatialReference.wkid), the answer in \(outSR.wkid): they must be the same")
        }
        let (scaleX, scaleY): (Double, Double)
        switch mode {
        case .edit:
            // ArcGIS's default resolutions, by what the reference measures (not by its code's range).
            (scaleX, scaleY) = (coordinateSystem.fullResolution, coordinateSystem.fullResolution)
        case .view:
            if let tolerance {
                (scaleX, scaleY) = (tolerance, tolerance)
            } else {
                (scaleX, scaleY) = (extent.width / 10_000, extent.height / 10_000)
            }
        }
        guard scaleX > 0, scaleY > 0, scaleX.isFinite, scaleY.isFinite else {
            throw .invalidParameter("quantizationParameters", "needs a tolerance, or an extent with a width and a height")
        }
        try checkCells(scaleX: scaleX, scaleY: scaleY)
        let top = originPosition == .upperLeft
        return QuantizationGrid(
            originPosition: originPosition, scaleX: scaleX, scaleY: scaleY, translateX: extent.xmin,
            translateY: top ? extent.ymax : extent.ymin, keepsEveryVertex: mode == .edit, domain: coordinateSystem.domain)
    }

    private func checkCells(scaleX: Double, scaleY: Double) throws(ArcGISError) {
        guard extent.width / scaleX <= Self.maximumCells, extent.height / scaleY <= Self.maximumCells else {
            throw .invalidParameter(
                "quantizationParameters", "the extent holds more than 2^40 cells of the tolerance along an axis")
        }
    }
}

/// A quantization grid: integer `(column, row)` = coordinates less `translate`, over `scale`,
/// rows counted down from the top for `upperLeft` (the answer's `transform`).
public struct QuantizationGrid: Sendable, Equatable {
    public var originPosition: QuantizationParameters.OriginPosition
    public var scaleX: Double
    public var scaleY: Double
    public var translateX: Double
    public var translateY: Double
    /// `edit` mode: no vertex is dropped.
    public var keepsEveryVertex: Bool
    /// The coordinates the answer's reference admits (`CoordinateSystem.domain`); nil: any
    /// finite ones. A geometry with a vertex outside it and too far out for a cell is stored
    /// data the grid cannot carry, answered without geometry; one inside it is the grid's
    /// fault, a 400.
    public var domain: Envelope?

    /// The largest magnitude a quantized coordinate may have (2^52): a vertex further outside
    /// the extent is refused rather than rounded or overflowed.
    public static let maximumMagnitude: Double = 4_503_599_627_370_496

    public init(
        originPosition: QuantizationParameters.OriginPosition, scaleX: Double, scaleY: Double, translateX: Double, translateY: Double,
        keepsEveryVertex: Bool, domain: Envelope? = nil
    ) {
        self.originPosition = originPosition
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.translateX = translateX
        self.translateY = translateY
        self.keepsEveryVertex = keepsEveryVertex
        self.domain = domain
    }

    /// Whether `(x, y)` lies outside `domain` (or is not finite).
    public func isOutsideDomain(x: Double, y: Double) -> Bool {
        guard x.isFinite, y.isFinite else { return true }
        guard let domain else { return false }
        return !(x >= domain.xmin && x <= domain.xmax && y >= domain.ymin && y <= domain.ymax)
    }

    /// The column of `x`; nil when not finite or beyond `maximumMagnitude`.
    public func column(_ x: Double) -> Int64? { Self.integer(((x - translateX) / scaleX).rounded()) }

    /// The row of `y`; nil when not finite or beyond `maximumMagnitude`.
    public func row(_ y: Double) -> Int64? {
        Self.integer(((originPosition == .upperLeft ? translateY - y : y - translateY) / scaleY).rounded())
    }

    /// The coordinates a client decodes from a column and row.
    public func x(column: Int64) -> Double { translateX + Double(column) * scaleX }
    public func y(row: Int64) -> Double { originPosition == .upperLeft ? translateY - Double(row) * scaleY : translateY + Double(row) * scaleY }

    /// The answer's `transform` member.
    public var json: JSONValue {
        [
            "originPosition": .string(originPosition.rawValue), "scale": [.double(scaleX), .double(scaleY), 0, 0],
            "translate": [.double(translateX), .double(translateY), 0, 0],
        ]
    }

    private static func integer(_ value: Double) -> Int64? {
        guard value.isFinite, abs(value) <= maximumMagnitude else { return nil }
        return Int64(value)
    }
}
