import Testing

@testable import OutpostGeocoding

/// `suggest`'s magic key: opaque, versioned, and safe to read back (docs/geocoding.md, "Suggest").
@Suite struct MagicKeyTests {
    @Test(arguments: LocatorEntry.Kind.allCases)
    func roundTripsEveryKind(_ kind: LocatorEntry.Kind) {
        for id in ["1", "roads:42", "a|b|c", "Église-7", String(repeating: "z", count: MagicKey.maximumIdLength)] {
            let key = MagicKey(entryId: id, kind: kind)
            #expect(MagicKey(encoded: key.encoded) == key)
            #expect(key.encoded.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
    }

    @Test(arguments: [
        "", "not base64!", "====", "b2cxfHBhfA", "b2cyfHBhfDE", "b2cxfHp6fDE", "b2cx", "b2cxfHBh", "/w", "_-_-", "b2cxfHBhfDE=",
        String(repeating: "A", count: 10_000),
    ])
    func rejectsJunk(_ junk: String) {
        #expect(MagicKey(encoded: junk) == nil)
    }

    @Test func rejectsAnOverlongId() {
        let key = MagicKey(entryId: String(repeating: "z", count: MagicKey.maximumIdLength + 1), kind: .place)
        #expect(MagicKey(encoded: key.encoded) == nil)
    }

    @Test func randomBytesNeverCrashAndRarelyRead() {
        var random = SeededGenerator(seed: 7)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ ")
        for _ in 0..<2_000 {
            let text = String((0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            if let key = MagicKey(encoded: text) { #expect(MagicKey(encoded: key.encoded) == key) }
        }
    }
}

/// A small deterministic generator (SplitMix64) for property loops.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
