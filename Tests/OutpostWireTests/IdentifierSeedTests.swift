import Testing

@testable import OutpostWire

/// `--seed` (docs/testing-your-app.md, "Starting one"): ids drawn from a seed are reproducible.
/// The process-wide switch itself is checked across processes (interop
/// `test_test_target_journal.py`): tests here run side by side and must not reseed it.
@Suite struct IdentifierSeedTests {
    @Test func splitMix64MatchesTheReferenceSequence() {
        // Vigna's splitmix64.c, seeded with 0.
        var zero = SeededGenerator(seed: 0)
        #expect([zero.next(), zero.next(), zero.next()] == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }

    @Test func globalIDsFromOneSeedRepeatAndAreVersion4() {
        var first = SeededGenerator(seed: 42)
        var second = SeededGenerator(seed: 42)
        let a = (0..<100).map { _ in GlobalID.make(using: &first) }
        let b = (0..<100).map { _ in GlobalID.make(using: &second) }
        #expect(a == b)
        #expect(Set(a).count == 100)
        #expect(a.allSatisfy { GlobalID.normalize($0) == $0 && Array($0)[15] == "4" })
        var third = SeededGenerator(seed: 43)
        #expect(GlobalID.make(using: &third) != a[0])
    }

    @Test func unseededIdsDiffer() {
        let ids = (0..<1000).map { _ in GlobalID.make() }
        #expect(Set(ids).count == 1000)
    }
}
