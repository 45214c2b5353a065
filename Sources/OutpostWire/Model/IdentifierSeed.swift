import Foundation

/// Where new identifiers (GlobalIDs, and through them replica and job ids; item ids) draw
/// their randomness: the system's generator, or, once `seed(_:)` is called (`serve --seed N`,
/// a test target), a generator seeded with `N`, so two runs making the same requests in the
/// same order make the same ids. Secrets (tokens, keys, codes) never draw from here.
///
/// Under a seed, each stream (`stream`: a request's service, set by the server for the request's
/// task and carried to the blocking work it starts with `drawing(in:_:)`) draws from its own
/// generator, seeded from the seed and the stream's name: a client working on two services at
/// once gets the same ids for each in every run, whichever request reaches the server first.
public enum IdentifierSeed {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var seed: UInt64?
    nonisolated(unsafe) private static var streams: [String: SeededGenerator] = [:]
    private static let threadKey = "outpost.identifier-stream"

    /// The stream ids drawn in this task come from (nil: the process's main stream).
    @TaskLocal public static var stream: String?

    /// Makes ids reproducible from `seed`; nil: random again.
    public static func seed(_ seed: UInt64?) {
        lock.withLock {
            self.seed = seed
            streams = [:]
        }
    }

    /// Whether ids are being drawn from a seed.
    public static var isSeeded: Bool { lock.withLock { seed != nil } }

    /// Runs blocking `work` (on a thread that is not the task's) drawing from `stream`.
    public static func drawing<T>(in stream: String, _ work: () throws -> T) rethrows -> T {
        let dictionary = Thread.current.threadDictionary
        let previous = dictionary[threadKey]
        dictionary[threadKey] = stream
        defer { dictionary[threadKey] = previous }
        return try work()
    }

    /// The next 64 random bits for an identifier.
    public static func next() -> UInt64 {
        lock.withLock {
            guard let seed else {
                var system = SystemRandomNumberGenerator()
                return system.next()
            }
            let name = Thread.current.threadDictionary[threadKey] as? String ?? stream ?? ""
            var generator = streams[name] ?? SeededGenerator(seed: seed ^ fnv1a(name))
            let value = generator.next()
            streams[name] = generator
            return value
        }
    }

    /// FNV-1a of a stream's name: its generator's seed, mixed with the process's.
    static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    /// Identifier randomness as a `RandomNumberGenerator`.
    public struct Generator: RandomNumberGenerator {
        public init() {}
        public mutating func next() -> UInt64 { IdentifierSeed.next() }
    }
}
