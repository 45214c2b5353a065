import Foundation

/// The time as Outpost records it: milliseconds since 1970 (Esri's date unit). Everything
/// that stamps a time (generations, replicas, jobs, tokens, uploads, conflicts, syncs) reads
/// it from an injected clock, so tests can fix it and move it on.
public protocol WallClock: Sendable {
    func milliseconds() -> Int64
}

/// The system's wall clock.
public struct SystemClock: WallClock {
    public init() {}

    public func milliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// A clock that stands still until moved (tests, replays).
public final class ManualClock: WallClock, @unchecked Sendable {
    // NSLock rather than Mutex: OutpostSync also builds for macOS 14 / iOS 17.
    private let lock = NSLock()
    private var now: Int64

    public init(milliseconds: Int64 = 1_767_225_600_000) { now = milliseconds }

    public func milliseconds() -> Int64 { lock.withLock { now } }

    public func advance(milliseconds: Int64) { lock.withLock { now += milliseconds } }
}
