import CProj
import OutpostWire
import Synchronization

/// What kind of coordinates a spatial reference has, read from PROJ's database: the
/// definitions both backends' `ST_Transform` reproject with (SpatiaLite names references as
/// `EPSG:<code>` to PROJ, PostGIS hands PROJ its `spatial_ref_sys` authority codes), so one
/// lookup serves edits, quantization and extents on either backend instead of a guess from
/// the code's range (docs/decisions.md, "Coordinate domains").
public enum CoordinateSystemCatalog {
    /// The coordinate system of `reference` (its `epsg`, as EPSG then as ESRI code). A code
    /// PROJ does not know is taken as projected: such a reference cannot be reprojected
    /// either, and lengths are the wider domain.
    public static func coordinateSystem(of reference: SpatialReference) -> CoordinateSystem {
        lookup(reference.epsg) ?? .projected
    }

    /// Whether PROJ knows `reference` at all.
    public static func knows(_ reference: SpatialReference) -> Bool { lookup(reference.epsg) != nil }

    /// Codes looked up so far (known ones only, so a caller cycling through invented codes
    /// cannot grow it past the few thousand references PROJ defines), and the context PROJ
    /// reads its database through (not thread-safe: used under the lock).
    private static let state = Mutex<(known: [Int: CoordinateSystem], context: OpaquePointer?)>(([:], nil))

    private static func lookup(_ code: Int) -> CoordinateSystem? {
        guard code > 0, code <= Int(Int32.max) else { return nil }
        return state.withLock { state in
            if let known = state.known[code] { return known }
            if state.context == nil {
                state.context = proj_context_create()
                proj_log_level(state.context, PJ_LOG_NONE)
            }
            guard let context = state.context else { return nil }
            for authority in ["EPSG", "ESRI"] {
                guard let found = coordinateSystem(authority: authority, code: code, context: context) else { continue }
                state.known[code] = found
                return found
            }
            return nil
        }
    }

    /// The definition's kind: geographic (2D or 3D) in its angular unit, else projected. A
    /// compound reference (horizontal + vertical) is its horizontal part.
    private static func coordinateSystem(authority: String, code: Int, context: OpaquePointer) -> CoordinateSystem? {
        guard var crs = proj_create_from_database(context, authority, String(code), PJ_CATEGORY_CRS, 0, nil) else { return nil }
        defer { proj_destroy(crs) }
        var horizontal: OpaquePointer?
        defer { if let horizontal { proj_destroy(horizontal) } }
        if proj_get_type(crs) == PJ_TYPE_COMPOUND_CRS {
            guard let part = proj_crs_get_sub_crs(context, crs, 0) else { return nil }
            horizontal = part
            crs = part
        }
        switch proj_get_type(crs) {
        case PJ_TYPE_GEOGRAPHIC_2D_CRS, PJ_TYPE_GEOGRAPHIC_3D_CRS:
            return CoordinateSystem(kind: .geographic, degreesPerUnit: angularUnit(of: crs, context: context) * 180 / .pi)
        case PJ_TYPE_UNKNOWN:
            return nil
        default:
            return .projected
        }
    }

    /// Radians per unit of the first axis (degrees: π/180); a degree when PROJ cannot say.
    private static func angularUnit(of crs: OpaquePointer, context: OpaquePointer) -> Double {
        guard let system = proj_crs_get_coordinate_system(context, crs) else { return .pi / 180 }
        defer { proj_destroy(system) }
        var factor = 0.0
        guard proj_cs_get_axis_info(context, system, 0, nil, nil, nil, &factor, nil, nil, nil) == 1, factor.isFinite, factor > 0 else {
            return .pi / 180
        }
        return factor
    }
}
