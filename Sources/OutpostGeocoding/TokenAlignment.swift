/// A query component's tokens paired with an entry component's, order ignored: exact pairs
/// first, then each remaining query token with its closest fuzzy partner. Each entry token
/// pairs at most once.
struct TokenAlignment {
    var penalties: [MatchPenalty] = []
    /// Pairs whose entry token is not generic (`AddressNormalizer.isGeneric`): a match needs one.
    var distinctiveMatches = 0
    /// Every token paired, exactly or fuzzily, on both sides.
    var isComplete = true

    init(query: [String], entry: [String]) {
        var unused = entry.indices.map { _ in true }
        var unmatched: [String] = []
        for token in query {
            if let index = entry.indices.first(where: { unused[$0] && entry[$0] == token }) {
                unused[index] = false
                if !AddressNormalizer.isGeneric(token) { distinctiveMatches += 1 }
            } else {
                unmatched.append(token)
            }
        }
        for token in unmatched {
            var best: (index: Int, edits: Int)?
            for index in entry.indices where unused[index] {
                if case .fuzzy(let edits) = TokenDistance.compare(token, entry[index]), edits < best?.edits ?? .max { best = (index, edits) }
            }
            if let best {
                unused[best.index] = false
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
    }
}
