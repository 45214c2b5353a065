import Foundation

/// Where new identifiers (GlobalIDs, and through them replica and job ids; item ids) draw
/// their randomness: the system's generator, or, once `seed(_:)` is called (`serve --seed N`,
/// a test target), a generator seeded with `N`, so two runs making the same requests in the
/// same order make the same ids. Secrets (tokens, keys, codes) never draw from here.
public enum IdentifierSeed {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var seeded: SplitMix64?

    /// Makes ids reproducible from `seed`; nil: random again.
    public static func seed(_ seed: UInt64?) { lock.withLock { seeded = seed.map(SplitMix64.init(seed:)) } }

    /// Whether ids are being drawn from a seed.
    public static var isSeeded: Bool { lock.withLock { seeded != nil } }

    /// The next 64 random bits for an identifier.
    public static func next() -> UInt64 {
        lock.withLock {
            guard var generator = seeded else {
                var system = SystemRandomNumberGenerator()
                return system.next()
            }
            let value = generator.next()
            seeded = generator
            return value
        }
    }

    /// Identifier randomness as a `RandomNumberGenerator`.
    public struct Generator: RandomNumberGenerator {
        public init() {}
        public mutating func next() -> UInt64 { IdentifierSeed.next() }
    }
}

/// SplitMix64 (Steele, Lea and Flood): a small, fast generator with a 64-bit state, good enough
/// for reproducible identifiers and seeded fault probabilities (never for secrets).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
