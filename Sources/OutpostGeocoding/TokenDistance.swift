/// How alike two canonical tokens are (docs/geocoding.md, "Fuzzy tokens"): the Damerau-
/// Levenshtein distance in its optimal-string-alignment form (insertions, deletions,
/// substitutions and swaps of two neighbours, each costing 1), allowed only up to a bound that
/// grows with the longer token's length.
public enum TokenDistance {
    /// How a query token meets an entry token.
    public enum Comparison: Hashable, Sendable {
        case exact
        case fuzzy(edits: Int)
        case different
    }

    /// Edits allowed between tokens whose longer one has `length` characters: none below 4,
    /// one for 4–7, two for 8 or more. A token holding a digit allows none ("12" is not "13").
    public static func allowedEdits(length: Int) -> Int {
        switch length {
        case ..<4: 0
        case 4...7: 1
        default: 2
        }
    }

    public static func compare(_ query: String, _ entry: String) -> Comparison {
        if query == entry { return .exact }
        let allowed = allowedEdits(length: max(query.count, entry.count))
        guard allowed > 0, !query.contains(where: \.isNumber), !entry.contains(where: \.isNumber) else { return .different }
        return distance(query, entry, bound: allowed).map { .fuzzy(edits: $0) } ?? .different
    }

    /// The distance when it is at most `bound`, else nil. Both tokens are cut to
    /// `AddressNormalizer.maximumTokenLength`, and a row whose every cell passes the bound
    /// stops the work.
    public static func distance(_ first: String, _ second: String, bound: Int) -> Int? {
        measured(first, second, bound: bound).distance
    }

    /// `distance`, and how many rows of the table it filled: what the early exit saves.
    static func measured(_ first: String, _ second: String, bound: Int) -> (distance: Int?, rows: Int) {
        let a = Array(first.utf8.prefix(AddressNormalizer.maximumTokenLength))
        let b = Array(second.utf8.prefix(AddressNormalizer.maximumTokenLength))
        guard abs(a.count - b.count) <= bound else { return (nil, 0) }
        if a.isEmpty || b.isEmpty { return (max(a.count, b.count), 0) }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var cell = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { cell = min(cell, before[j - 2] + 1) }
                current[j] = cell
                rowMinimum = min(rowMinimum, cell)
            }
            if rowMinimum > bound { return (nil, i) }
            (before, previous, current) = (previous, current, before)
        }
        return (previous[b.count] <= bound ? previous[b.count] : nil, a.count)
    }
}
