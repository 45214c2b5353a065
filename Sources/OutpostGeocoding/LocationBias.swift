/// ArcGIS's `location` and `distance`: among candidates of equal score and type, the nearer
/// goes first; beyond `distance` (when given) all are equally far, so the bias only reorders
/// candidates near the location. It never lifts a lower score.
public struct LocationBias: Hashable, Sendable, Codable {
    public var location: PlanarPoint
    public var distance: Double?

    public init(location: PlanarPoint, distance: Double? = nil) {
        self.location = location
        self.distance = distance
    }

    func effectiveDistance(to point: PlanarPoint) -> Double {
        let distance = location.distance(to: point)
        guard let radius = self.distance else { return distance.isNaN ? .infinity : distance }
        return distance <= radius ? distance : .infinity
    }
}
