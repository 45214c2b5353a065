import Foundation

/// A web map's thumbnail drawn by the server (200 × 133, ArcGIS's thumbnail size): its layers'
/// features on a plain ground, in Web Mercator, each layer in a colour of its own. Pure: the
/// features come in as ArcGIS JSON geometries in longitude and latitude (`outSR=4326`).
/// Bounded by its inputs: segments are clipped to a band around the picture before they are
/// drawn, and at most `maximumSegments` are drawn.
public struct MapThumbnail: Sendable {
    public static let width = 200
    public static let height = 133
    public static let maximumSegments = 200_000
    public static let ground = PNGImage.RGB(0xEE, 0xF2, 0xF0)
    public static let palette: [PNGImage.RGB] = [
        .init(0x00, 0x5E, 0x95), .init(0xC0, 0x39, 0x2B), .init(0x1E, 0x84, 0x49), .init(0x8E, 0x44, 0xAD), .init(0xD3, 0x54, 0x00),
    ]

    public private(set) var image = PNGImage(width: width, height: height, background: ground)
    /// The drawn extent in Web Mercator metres: xmin, ymin, xmax, ymax.
    let bounds: (Double, Double, Double, Double)
    private var segments = 0

    /// A map of `extent` (longitude and latitude: xmin, ymin, xmax, ymax), widened to the
    /// picture's shape with a margin.
    public init(extent: [Double]) {
        precondition(extent.count == 4)
        let (x0, y0) = Self.mercator(extent[0], extent[1])
        let (x1, y1) = Self.mercator(extent[2], extent[3])
        var (cx, cy) = ((x0 + x1) / 2, (y0 + y1) / 2)
        var (w, h) = (max(abs(x1 - x0), 1_000) * 1.1, max(abs(y1 - y0), 1_000) * 1.1)
        let aspect = Double(Self.width) / Double(Self.height)
        if w / h > aspect { h = w / aspect } else { w = h * aspect }
        if !cx.isFinite || !cy.isFinite { (cx, cy) = (0, 0) }
        bounds = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
    }

    /// The extent of `geometries` (longitude and latitude), nil when none has a coordinate.
    public static func extent(of geometries: [JSONValue]) -> [Double]? {
        var box: [Double]?
        for geometry in geometries {
            for (x, y) in vertices(geometry).lazy.flatMap({ $0 }) {
                box = box.map { [min($0[0], x), min($0[1], y), max($0[2], x), max($0[3], y)] } ?? [x, y, x, y]
            }
        }
        return box
    }

    /// Draws `geometry` (a point, multipoint, polyline or polygon) in `colour`.
    public mutating func draw(_ geometry: JSONValue, colour: PNGImage.RGB) {
        let parts = Self.vertices(geometry)
        let isPoint = geometry["x"] != nil || geometry["points"] != nil
        for part in parts {
            let pixels = part.map(pixel)
            if isPoint {
                for (x, y) in pixels { dot(x, y, colour) }
                continue
            }
            for (from, to) in zip(pixels, pixels.dropFirst()) where segments < Self.maximumSegments {
                segments += 1
                line(from, to, colour)
            }
        }
    }

    /// The picture as a PNG file.
    public var png: [UInt8] { image.bytes }

    // MARK: Drawing

    static func mercator(_ longitude: Double, _ latitude: Double) -> (Double, Double) {
        let radius = 6_378_137.0
        let lat = max(-85, min(85, latitude))
        return (longitude * .pi / 180 * radius, log(tan(.pi / 4 + lat * .pi / 360)) * radius)
    }

    func pixel(_ point: (Double, Double)) -> (Int, Int) {
        let (x, y) = Self.mercator(point.0, point.1)
        let px = (x - bounds.0) / (bounds.2 - bounds.0) * Double(Self.width - 1)
        let py = (bounds.3 - y) / (bounds.3 - bounds.1) * Double(Self.height - 1)
        // Clamped to a band around the picture: a far vertex costs no more than a near one.
        func band(_ value: Double, _ size: Int) -> Int {
            guard value.isFinite else { return -size }
            return Int(max(-Double(size), min(Double(2 * size), value.rounded())))
        }
        return (band(px, Self.width), band(py, Self.height))
    }

    private mutating func dot(_ x: Int, _ y: Int, _ colour: PNGImage.RGB) {
        for dx in -1...1 { for dy in -1...1 { image.set(x + dx, y + dy, colour) } }
    }

    /// Bresenham's line from `a` to `b`.
    private mutating func line(_ a: (Int, Int), _ b: (Int, Int), _ colour: PNGImage.RGB) {
        var (x, y) = a
        let (dx, dy) = (abs(b.0 - a.0), -abs(b.1 - a.1))
        let (sx, sy) = (a.0 < b.0 ? 1 : -1, a.1 < b.1 ? 1 : -1)
        var error = dx + dy
        while true {
            image.set(x, y, colour)
            if x == b.0 && y == b.1 { return }
            let twice = 2 * error
            if twice >= dy {
                error += dy
                x += sx
            }
            if twice <= dx {
                error += dx
                y += sy
            }
        }
    }

    /// A geometry's vertices by part: a point's one, a multipoint's, each path or ring.
    static func vertices(_ geometry: JSONValue) -> [[(Double, Double)]] {
        func pair(_ value: JSONValue) -> (Double, Double)? {
            guard let x = value[0]?.doubleValue, let y = value[1]?.doubleValue, x.isFinite, y.isFinite else { return nil }
            return (x, y)
        }
        if let x = geometry["x"]?.doubleValue, let y = geometry["y"]?.doubleValue, x.isFinite, y.isFinite { return [[(x, y)]] }
        if let points = geometry["points"]?.arrayValue { return [points.compactMap(pair)] }
        let parts = geometry["paths"]?.arrayValue ?? geometry["rings"]?.arrayValue ?? []
        return parts.map { ($0.arrayValue ?? []).compactMap(pair) }
    }
}
