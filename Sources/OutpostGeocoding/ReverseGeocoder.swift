/// `reverseGeocode` over the entries an index's spatial search gathered near a point
/// (docs/geocoding.md, "Reverse geocoding"): the nearest address point within the distance;
/// else the nearest centre-line within it, with the house number its ranges give at the
/// point's projection on the point's side (a StreetAddress), or without one when that side
/// has no range (a StreetName); else the nearest place within it (a POI); else nothing.
/// Localities and postcodes are areas, not answers.
public enum ReverseGeocoder {
    public struct Result: Hashable, Sendable, Codable {
        public var entryId: String
        public var entryKind: LocatorEntry.Kind
        public var addressType: AddressType
        public var matchAddress: String
        /// The address point, or the point's projection on the centre-line.
        public var location: PlanarPoint
        public var houseNumber: HouseNumber?
        public var side: StreetSide?
        /// From the asked point to the entry (its point, or the line).
        public var distance: Double
    }

    /// Ties in distance go to the smaller feature id.
    public static func reverseGeocode(_ point: PlanarPoint, among entries: [LocatorEntry], maxDistance: Double) -> Result? {
        guard point.x.isFinite, point.y.isFinite, maxDistance >= 0 else { return nil }
        let gathered = entries.prefix(AddressMatcher.maximumEntries)
        let points = gathered.filter { $0.kind == .pointAddress }.map { ($0, $0.location.distance(to: point)) }
        if let (entry, distance) = nearest(points, within: maxDistance) {
            return Result(
                entryId: entry.id, entryKind: entry.kind, addressType: .pointAddress,
                matchAddress: AddressMatcher.matchAddress(.pointAddress, entry, houseNumber: entry.houseNumber), location: entry.location,
                houseNumber: entry.houseNumber, side: nil, distance: distance)
        }
        let lines = gathered.filter { $0.kind == .streetCenterline }.compactMap { entry in
            CenterlineInterpolation.project(point, onto: entry.polyline).map { (entry, $0) }
        }
        // The projection travels with its entry: two lines may share an id.
        guard let (entry, projection) = nearest(lines, within: maxDistance, distance: \.distance) else {
            return nearestPlace(point, among: Array(gathered), within: maxDistance)
        }
        let distance = projection.distance
        // Ranges run with the line from its first vertex, so the line's fraction is the range's.
        let number = entry.ranges.flatMap { CenterlineInterpolation.houseNumber(at: projection.fraction, side: projection.side, ranges: $0) }
        let type: AddressType = number == nil ? .streetName : .streetAddress
        let house = number.map { HouseNumber(number: $0) }
        return Result(
            entryId: entry.id, entryKind: entry.kind, addressType: type, matchAddress: AddressMatcher.matchAddress(type, entry, houseNumber: house),
            location: projection.location, houseNumber: house, side: number == nil ? nil : projection.side, distance: distance)
    }

    /// A locator of places (no addresses, no streets near): the nearest place within the
    /// distance, as a POI.
    private static func nearestPlace(_ point: PlanarPoint, among entries: [LocatorEntry], within maxDistance: Double) -> Result? {
        let places = entries.filter { $0.kind == .place }.map { ($0, $0.location.distance(to: point)) }
        guard let (entry, distance) = nearest(places, within: maxDistance) else { return nil }
        return Result(
            entryId: entry.id, entryKind: entry.kind, addressType: .poi, matchAddress: AddressMatcher.matchAddress(.poi, entry, houseNumber: nil),
            location: entry.location, houseNumber: nil, side: nil, distance: distance)
    }

    private static func nearest(_ found: [(LocatorEntry, Double)], within maxDistance: Double) -> (LocatorEntry, Double)? {
        nearest(found, within: maxDistance, distance: \.self)
    }

    /// The pair nearest (by `distance` of its second half) within `maxDistance`; ties go to the
    /// smaller feature id.
    private static func nearest<Found>(
        _ found: [(LocatorEntry, Found)], within maxDistance: Double, distance: (Found) -> Double
    ) -> (LocatorEntry, Found)? {
        found.filter { distance($0.1) <= maxDistance }.min { first, second in
            let (a, b) = (distance(first.1), distance(second.1))
            return a != b ? a < b : first.0.id < second.0.id
        }
    }
}
