import Testing

@testable import OutpostGeocoding

/// Fuzzy tokens (docs/geocoding.md, "Fuzzy tokens").
@Suite struct TokenDistanceTests {
    @Test(arguments: [
        ("equal is exact", "hill", "hill", TokenDistance.Comparison.exact),
        ("short tokens allow no edit", "hil", "hit", .different),
        ("a deletion at four letters", "hil", "hill", .fuzzy(edits: 1)),
        ("one edit at seven letters", "stret", "street", .fuzzy(edits: 1)),
        ("two edits under eight letters are too many", "strt", "street", .different),
        ("two edits at five letters are too many", "stree", "steer", .different),
        ("a transposition counts once", "hlil", "hill", .fuzzy(edits: 1)),
        ("two edits at eight letters or more", "sprngfeld", "springfield", .fuzzy(edits: 2)),
        ("three edits are too many", "sprngfld", "springfield", .different),
        ("numbers are never fuzzy", "1234", "1235", .different),
        ("ordinals are never fuzzy", "21st", "31st", .different),
    ])
    func compares(_ rule: String, _ query: String, _ entry: String, _ expected: TokenDistance.Comparison) {
        #expect(TokenDistance.compare(query, entry) == expected, "\(rule)")
    }

    @Test(arguments: [(3, 0), (4, 1), (7, 1), (8, 2), (40, 2)])
    func allowedEditsGrowWithLength(_ length: Int, _ edits: Int) {
        #expect(TokenDistance.allowedEdits(length: length) == edits)
    }

    @Test func workIsBoundedByTheLengthCap() {
        let long = String(repeating: "ab", count: 10_000)
        #expect(TokenDistance.distance(long, long + "x", bound: 2) == 0)
    }

    /// Against a plain full-matrix implementation, for random short words.
    @Test func agreesWithTheTextbookDefinition() {
        var random = SeededGenerator(seed: 11)
        let letters = Array("abcde")
        for _ in 0..<3_000 {
            let a = String((0..<Int.random(in: 0...8, using: &random)).map { _ in letters.randomElement(using: &random)! })
            let b = String((0..<Int.random(in: 0...8, using: &random)).map { _ in letters.randomElement(using: &random)! })
            let full = Self.textbook(Array(a), Array(b))
            #expect(TokenDistance.distance(a, b, bound: 2) == (full <= 2 ? full : nil), "\(a) \(b)")
        }
    }

    static func textbook(_ a: [Character], _ b: [Character]) -> Int {
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
