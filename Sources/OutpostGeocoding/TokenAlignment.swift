/// A query component's tokens paired with an entry component's: exact pairs first, then each
/// remaining query token with its closest fuzzy partner. Each entry token pairs at most once.
/// Order does not keep tokens from pairing, but pairs out of the entry's order cost a point
/// (`MatchPenalty.tokenOrder`): "Park Hill" is Park Hill's before Hill Park's.
struct TokenAlignment {
    var penalties: [MatchPenalty] = []
    /// Pairs whose entry token is not generic (`AddressNormalizer.isGeneric`): a match needs one.
    var distinctiveMatches = 0
    /// Every token paired, exactly or fuzzily, on both sides.
    var isComplete = true

    init(query: [String], entry: [String]) {
        var unused = entry.indices.map { _ in true }
        var unmatched: [(position: Int, token: String)] = []
        var paired: [Int?] = query.map { _ in nil }
        for (position, token) in query.enumerated() {
            if let index = entry.indices.first(where: { unused[$0] && entry[$0] == token }) {
                unused[index] = false
                paired[position] = index
                if !AddressNormalizer.isGeneric(token) { distinctiveMatches += 1 }
            } else {
                unmatched.append((position, token))
            }
        }
        for (position, token) in unmatched {
            var best: (index: Int, edits: Int)?
            for index in entry.indices where unused[index] {
                if case .fuzzy(let edits) = TokenDistance.compare(token, entry[index]), edits < best?.edits ?? .max { best = (index, edits) }
            }
            if let best {
                unused[best.index] = false
                paired[position] = best.index
                penalties.append(.fuzzyToken(edits: best.edits))
                if !AddressNormalizer.isGeneric(entry[best.index]) { distinctiveMatches += 1 }
            } else {
                penalties.append(.extraToken)
                isComplete = false
            }
        }
        for index in entry.indices where unused[index] {
            penalties.append(.missingToken(generic: AddressNormalizer.isGeneric(entry[index])))
            isComplete = false
        }
        let order = paired.compactMap { $0 }
        if order != order.sorted() { penalties.append(.tokenOrder) }
    }
}
