import Foundation

/// An entry as the stores keep it: its tokens for the text index, its extent for the spatial
/// prefilter, and the whole entry as JSON. A locator file (`LocatorFile`) keeps the same rows.
public struct LocatorEntryRow: Sendable {
    public var kind: String
    public var id: String
    /// `indexTokens` joined by spaces: `[a-z0-9]` words only.
    public var tokens: String
    public var xmin: Double
    public var ymin: Double
    public var xmax: Double
    public var ymax: Double
    public var json: String

    public init(kind: String, id: String, tokens: String, xmin: Double, ymin: Double, xmax: Double, ymax: Double, json: String) {
        self.kind = kind
        self.id = id
        self.tokens = tokens
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
        self.json = json
    }

    public init(_ entry: LocatorEntry) throws {
        kind = entry.kind.rawValue
        id = entry.id
        tokens = entry.indexTokens.joined(separator: " ")
        let points = entry.polyline.compactMap { PlanarPoint(vertex: $0) }.filter(\.isFinite) + [entry.location].filter(\.isFinite)
        xmin = points.map(\.x).min() ?? 0
        ymin = points.map(\.y).min() ?? 0
        xmax = points.map(\.x).max() ?? 0
        ymax = points.map(\.y).max() ?? 0
        json = String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
    }

    public static func entry(_ json: String) throws -> LocatorEntry {
        try JSONDecoder().decode(LocatorEntry.self, from: Data(json.utf8))
    }
}
