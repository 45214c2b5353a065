import OutpostGeocoding

extension RoadNetwork {
    /// The piece's vertices in travel order, cut at its fractions by length along the edge.
    public func vertices(of piece: PathPiece) -> [PlanarPoint] {
        let all = vertices(of: piece.edge)
        let (low, high) = (min(piece.from, piece.to), max(piece.from, piece.to))
        let total = edgeLength[piece.edge]
        var cut: [PlanarPoint] = []
        var along = 0.0
        for (a, b) in zip(all, all.dropFirst()) {
            let step = RoadNetworkBuilder.metres(from: a, to: b)
            let (start, end) = (along / total, (along + step) / total)
            along += step
            guard end >= low, start <= high, step > 0 else { continue }
            func at(_ fraction: Double) -> PlanarPoint {
                let t = min(max((fraction - start) / (end - start), 0), 1)
                return PlanarPoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
            }
            if cut.isEmpty { cut.append(at(max(low, start))) }
            cut.append(at(min(high, end)))
        }
        if cut.count == 1 { cut.append(cut[0]) }
        return piece.isForward ? cut : cut.reversed()
    }

    public func length(of piece: PathPiece) -> Double { abs(piece.to - piece.from) * edgeLength[piece.edge] }
    public func minutes(of piece: PathPiece) -> Double { abs(piece.to - piece.from) * edgeMinutes[piece.edge] }
    /// The cost field's share, or 0 when the network has none.
    public func cost(of piece: PathPiece) -> Double { hasCost ? abs(piece.to - piece.from) * edgeCost[piece.edge] : 0 }

    /// Pieces' vertices joined, each shared vertex once.
    public func path(of pieces: [PathPiece]) -> [PlanarPoint] {
        var path: [PlanarPoint] = []
        for piece in pieces {
            for vertex in vertices(of: piece) where path.last != vertex { path.append(vertex) }
        }
        if path.count == 1 { path.append(path[0]) }
        return path
    }
}
