import Foundation

/// The planar reference every locator index holds its coordinates in (docs/geocoding.md,
/// "Coordinates"): Web Mercator (wkid 3857), spherical, in metres at the equator. Requests
/// and answers are in WGS84 unless they say 3857 / 102100.
public enum WebMercator {
    public static let wkid = 3857
    static let radius = 6_378_137.0
    /// Half the side of Web Mercator's square (x and y run ±this): π × the radius.
    public static let halfWidth = 20_037_508.342_789_244
    /// Beyond this latitude Web Mercator is not drawn.
    public static let maximumLatitude = 85.051_128_78

    /// A longitude and latitude (degrees) as a planar point; latitudes are clamped to the band.
    public static func point(longitude: Double, latitude: Double) -> PlanarPoint {
        let clamped = min(max(latitude, -maximumLatitude), maximumLatitude)
        let x = longitude * .pi / 180 * radius
        let y = log(tan(.pi / 4 + clamped * .pi / 360)) * radius
        return PlanarPoint(x: x, y: y)
    }

    /// A planar point as longitude and latitude in degrees.
    public static func coordinates(of point: PlanarPoint) -> (longitude: Double, latitude: Double) {
        (point.x / radius * 180 / .pi, (2 * atan(exp(point.y / radius)) - .pi / 2) * 180 / .pi)
    }

    /// How many planar units one metre on the ground is at the point: 1 / cos(latitude). A
    /// request's `distance` (metres) becomes index units with it.
    public static func unitsPerMetre(at point: PlanarPoint) -> Double {
        let latitude = coordinates(of: point).latitude
        return 1 / max(cos(latitude * .pi / 180), 0.01)
    }
}
