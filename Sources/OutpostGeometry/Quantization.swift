import OutpostWire

/// A geometry on a quantization grid, as ArcGIS writes it in Esri JSON: a point's column and
/// row; each part of a multipoint, polyline or polygon as its first vertex's column and row
/// followed by each next vertex's difference from the one before (delta encoding).
public struct QuantizedGeometry: Sendable, Equatable {
    public var type: EsriGeometryType
    /// Per part, flat `[column, row, Δcolumn, Δrow, …]`; a point has one part of two.
    public var parts: [[Int64]]

    public init(type: EsriGeometryType, parts: [[Int64]]) {
        self.type = type
        self.parts = parts
    }

    /// Writes `{"x":…,"y":…}`, `{"points":…}`, `{"paths":…}` or `{"rings":…}`.
    public func writeEsriJSON(to w: inout JSONWriter) {
        w.beginObject()
        if type == .point, let point = parts.first, point.count == 2 {
            w.member("x", point[0])
            w.member("y", point[1])
        } else {
            w.key(type == .multipoint ? "points" : type == .polyline ? "paths" : "rings")
            if type != .multipoint { w.beginArray() }
            for part in parts {
                w.beginArray()
                var index = 0
                while index + 1 < part.count {
                    w.beginArray()
                    w.int(part[index])
                    w.int(part[index + 1])
                    w.endArray()
                    index += 2
                }
                w.endArray()
            }
            if type != .multipoint { w.endArray() }
        }
        w.endObject()
    }

    /// The coordinates a client decodes (the transform applied, deltas summed), per part.
    public func decoded(on grid: QuantizationGrid) -> [[Point]] {
        parts.map { part in
            var points: [Point] = []
            var column: Int64 = 0
            var row: Int64 = 0
            var index = 0
            while index + 1 < part.count {
                column = index == 0 || type == .point ? part[index] : column &+ part[index]
                row = index == 0 || type == .point ? part[index + 1] : row &+ part[index + 1]
                points.append(Point(x: grid.x(column: column), y: grid.y(row: row)))
                index += 2
            }
            return points
        }
    }
}

extension QuantizationGrid {
    /// Parts with fewer vertices than this after quantization are dropped in `view` mode:
    /// a path needs two, a ring four (three corners and the closing vertex).
    static func minimumVertices(_ type: EsriGeometryType) -> Int {
        switch type {
        case .polyline: 2
        case .polygon, .envelope: 4
        case .point, .multipoint: 1
        }
    }

    /// Why a vertex has no cell.
    enum NoCell: Error {
        /// Stored outside its reference's domain: the geometry is answered without coordinates.
        case outsideDomain
        /// Inside the domain but more than 2^52 cells out: the grid is too fine for the answer.
        case beyondTheIntegers
    }

    /// `geometry` on this grid; nil when nothing is left of it (every part degenerate) or when
    /// a vertex outside the reference's domain has no cell (rows stored before edits were
    /// bounded, or imported: one such feature does not fail the page). A vertex inside the
    /// domain too far outside the extent to be an exact integer is a 400 naming the parameter.
    public func quantize(_ geometry: Geometry) throws(ArcGISError) -> QuantizedGeometry? {
        do {
            return try encode(geometry)
        } catch {
            switch error {
            case .outsideDomain: return nil
            case .beyondTheIntegers:
                throw .invalidParameter(
                    "quantizationParameters", "a coordinate lies more than 2^52 cells outside the extent; use a larger tolerance or extent")
            }
        }
    }

    private func cell(_ p: Point) throws(NoCell) -> (Int64, Int64) {
        guard let column = column(p.x), let row = row(p.y) else {
            throw isOutsideDomain(x: p.x, y: p.y) ? .outsideDomain : .beyondTheIntegers
        }
        return (column, row)
    }

    private func encode(_ geometry: Geometry) throws(NoCell) -> QuantizedGeometry? {
        switch geometry {
        case .point(let p):
            guard p.x.isFinite, p.y.isFinite else { return nil }
            let (column, row) = try cell(p)
            return QuantizedGeometry(type: .point, parts: [[column, row]])
        case .multipoint(let points):
            let part = try encode(points)
            return part.isEmpty ? nil : QuantizedGeometry(type: .multipoint, parts: [part])
        case .polyline(let parts), .polygon(let parts):
            let type = geometry.geometryType
            var encoded: [[Int64]] = []
            for part in parts {
                let values = try encode(part)
                if keepsEveryVertex ? !values.isEmpty : values.count >= 2 * Self.minimumVertices(type) { encoded.append(values) }
            }
            return encoded.isEmpty ? nil : QuantizedGeometry(type: type, parts: encoded)
        case .envelope:
            return try encode(geometry.polygonized)
        }
    }

    /// One part, delta encoded; in `view` mode a vertex in the cell of the one before is dropped.
    private func encode(_ points: [Point]) throws(NoCell) -> [Int64] {
        var values: [Int64] = []
        values.reserveCapacity(points.count * 2)
        var previous: (Int64, Int64)?
        for p in points {
            let (column, row) = try cell(p)
            if let (lastColumn, lastRow) = previous {
                if !keepsEveryVertex && column == lastColumn && row == lastRow { continue }
                values.append(column - lastColumn)
                values.append(row - lastRow)
            } else {
                values.append(column)
                values.append(row)
            }
            previous = (column, row)
        }
        return values
    }
}
