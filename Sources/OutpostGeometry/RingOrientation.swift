import OutpostWire

/// Ring bookkeeping between Esri polygons (a flat list of rings, outer rings clockwise)
/// and OGC polygons (exterior ring then holes, grouped per polygon).
public enum RingOrientation {
    /// Twice the signed area (shoelace): positive for counter-clockwise rings.
    public static func signedArea(_ ring: [Point]) -> Double {
        guard ring.count >= 3 else { return 0 }
        var sum = 0.0
        var previous = ring[ring.count - 1]
        for p in ring {
            sum += (previous.x - p.x) * (previous.y + p.y)
            previous = p
        }
        return sum
    }

    public static func isClockwise(_ ring: [Point]) -> Bool { signedArea(ring) < 0 }

    public static func oriented(_ ring: [Point], clockwise: Bool) -> [Point] {
        isClockwise(ring) == clockwise ? ring : ring.reversed()
    }

    /// Ray-casting point-in-ring test.
    public static func contains(_ ring: [Point], _ point: Point) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i]
            let b = ring[j]
            if (a.y > point.y) != (b.y > point.y),
                point.x < (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x
            {
                inside.toggle()
            }
            j = i
        }
        return inside
    }

    /// Groups Esri rings into OGC polygons: each clockwise ring starts a polygon, each
    /// counter-clockwise ring becomes a hole of the smallest outer ring holding it. A hole
    /// outside every outer ring is kept as an outer ring, so no ring is ever dropped.
    /// Output follows RFC 7946: exteriors counter-clockwise, holes clockwise.
    public static func ogcPolygons(fromEsriRings rings: [[Point]]) -> [[[Point]]] {
        var outers: [[Point]] = []
        var holes: [[Point]] = []
        let anyClockwise = rings.contains { isClockwise($0) }
        for ring in rings where ring.count >= 4 {
            // A polygon drawn entirely counter-clockwise is read as outer rings.
            if !anyClockwise || isClockwise(ring) { outers.append(ring) } else { holes.append(ring) }
        }
        var polygons: [[[Point]]] = outers.map { [oriented($0, clockwise: false)] }
        let areas = outers.map { abs(signedArea($0)) }
        for hole in holes {
            let probe = hole[0]
            var best: Int?
            for (index, outer) in outers.enumerated() where contains(outer, probe) {
                if best == nil || areas[index] < areas[best!] { best = index }
            }
            if let best {
                polygons[best].append(oriented(hole, clockwise: true))
            } else {
                polygons.append([oriented(hole, clockwise: false)])
            }
        }
        return polygons
    }

    /// Flattens OGC polygons into Esri rings: exteriors clockwise, holes counter-clockwise.
    public static func esriRings(fromOGCPolygons polygons: [[[Point]]]) -> [[Point]] {
        var rings: [[Point]] = []
        for polygon in polygons {
            for (index, ring) in polygon.enumerated() {
                rings.append(oriented(ring, clockwise: index == 0))
            }
        }
        return rings
    }
}
