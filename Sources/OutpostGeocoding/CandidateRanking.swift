/// The order of an answer's candidates (docs/geocoding.md, "Ranking"): score, then address
/// type (`AddressType.rankOrder`), then distance from a location bias, then the kind of entry
/// (a centre-line before a street's points), then feature id, so the same question always
/// answers in the same order.
public enum CandidateRanking {
    /// ArcGIS's most `maxLocations` for `findAddressCandidates`.
    public static let maximumLocations = 50

    /// Candidates inside `extent` scoring at least `minScore`, ranked, duplicates removed (the
    /// same address type and `matchAddress`, or the same entry and address type: the first in
    /// rank stays), at most `maxLocations` (itself at most `maximumLocations`).
    public static func rank(
        _ candidates: [GeocodeCandidate], maxLocations: Int, minScore: Double, near bias: LocationBias? = nil, within extent: SearchExtent? = nil
    ) -> [GeocodeCandidate] {
        let limit = min(max(maxLocations, 0), maximumLocations)
        let kept = candidates.filter { $0.score >= minScore && (extent?.contains($0.location) ?? true) }
        var seenAddresses = Set<[String]>()
        var seenEntries = Set<[String]>()
        var ranked: [GeocodeCandidate] = []
        for candidate in kept.sorted(by: { precedes($0, $1, bias: bias) }) where ranked.count < limit {
            let type = candidate.addressType.rawValue
            guard seenAddresses.insert([type, candidate.matchAddress.lowercased()]).inserted else { continue }
            guard seenEntries.insert([type, candidate.entryId]).inserted else { continue }
            ranked.append(candidate)
        }
        return ranked
    }

    /// Whether `first` ranks before `second`.
    public static func precedes(_ first: GeocodeCandidate, _ second: GeocodeCandidate, bias: LocationBias? = nil) -> Bool {
        if first.score != second.score { return first.score > second.score }
        if first.addressType != second.addressType { return first.addressType.rankOrder < second.addressType.rankOrder }
        if let bias {
            let (a, b) = (bias.effectiveDistance(to: first.location), bias.effectiveDistance(to: second.location))
            if a != b { return a < b }
        }
        if first.entryKind != second.entryKind { return first.entryKind.tieOrder < second.entryKind.tieOrder }
        return first.entryId < second.entryId
    }
}
