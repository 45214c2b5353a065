/// What a spatial reference's coordinates measure, as its definition says (PROJ's database,
/// read by `CoordinateSystemCatalog` in OutpostStorage): angles, for a geographic reference
/// (x longitude, y latitude), or lengths, for a projected one (and any other kind). It sizes
/// edit-mode quantization and bounds the coordinates a geometry may have (docs/decisions.md,
/// "Coordinate domains").
public struct CoordinateSystem: Sendable, Equatable, Hashable {
    public enum Kind: Sendable, Equatable, Hashable {
        case geographic
        case projected
    }

    public var kind: Kind
    /// A geographic reference's angular unit in degrees (1 for degrees, 0.9 for grads); 1 otherwise.
    public var degreesPerUnit: Double

    public init(kind: Kind, degreesPerUnit: Double = 1) {
        self.kind = kind
        self.degreesPerUnit = degreesPerUnit.isFinite && degreesPerUnit > 0 ? degreesPerUnit : 1
    }

    /// Longitude and latitude in degrees (WGS 84, GDA2020, NAD83, ETRS89…).
    public static let degrees = CoordinateSystem(kind: .geographic)
    /// Lengths (metres, feet…): every projected reference, and what a reference PROJ does not know is taken for.
    public static let projected = CoordinateSystem(kind: .projected)

    public var isGeographic: Bool { kind == .geographic }

    /// ArcGIS's default XY resolution, the "full resolution" of `mode=edit`: 1e-9 of the
    /// angular unit for geographic references, 0.0001 unit otherwise.
    public var fullResolution: Double { isGeographic ? 1e-9 : 1e-4 }

    /// The largest magnitude a projected coordinate may have: 2^52 cells of ArcGIS's 0.0001-unit
    /// resolution (ArcGIS stores coordinates as 53-bit integers of it), about 4.5e11 units.
    /// No real projection comes near it (the equator is 4.0e7 metres, 1.3e8 US feet).
    public static let projectedBound: Double = 450_359_962_737.049_6

    /// The coordinates a geometry in this reference may have. Geographic: latitude −90…90 and
    /// longitude −360…360 degrees (one turn either side of 0, for data kept in 0…360 and for
    /// parts drawn across the antimeridian; ArcGIS's own domain for geographic references starts
    /// at −400; PROJ projects longitudes up to 10 radians, 573°); projected: ±`projectedBound`.
    public var domain: Envelope {
        switch kind {
        case .geographic:
            Envelope(xmin: -360 / degreesPerUnit, ymin: -90 / degreesPerUnit, xmax: 360 / degreesPerUnit, ymax: 90 / degreesPerUnit)
        case .projected:
            Envelope(xmin: -Self.projectedBound, ymin: -Self.projectedBound, xmax: Self.projectedBound, ymax: Self.projectedBound)
        }
    }

    /// Whether (x, y) is finite and inside `domain`.
    public func admits(x: Double, y: Double) -> Bool {
        let domain = domain
        return x >= domain.xmin && x <= domain.xmax && y >= domain.ymin && y <= domain.ymax
    }

    /// `envelope` with each bound brought inside `domain` (a non-finite bound to the domain's
    /// edge): a layer's extent stays a finite box even over rows stored outside the domain.
    public func clamped(_ envelope: Envelope) -> Envelope {
        guard !envelope.isEmpty else { return envelope }
        let domain = domain
        func clamp(_ value: Double, _ low: Double, _ high: Double, nan: Double) -> Double {
            value.isNaN ? nan : Swift.min(Swift.max(value, low), high)
        }
        return Envelope(
            xmin: clamp(envelope.xmin, domain.xmin, domain.xmax, nan: domain.xmin),
            ymin: clamp(envelope.ymin, domain.ymin, domain.ymax, nan: domain.ymin),
            xmax: clamp(envelope.xmax, domain.xmin, domain.xmax, nan: domain.xmax),
            ymax: clamp(envelope.ymax, domain.ymin, domain.ymax, nan: domain.ymax))
    }
}
