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

/// The system's clock moved by an offset that can be changed while it runs (`serve
/// --test-target`): time goes on as usual, and a test can jump it forward or set it.
public final class SettableClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: Int64 = 0

    public init() {}

    public func milliseconds() -> Int64 { SystemClock().milliseconds() + lock.withLock { offset } }

    /// How far the clock is ahead of the system's (negative: behind).
    public var offsetMilliseconds: Int64 { lock.withLock { offset } }

    public func advance(milliseconds: Int64) { lock.withLock { offset += milliseconds } }

    /// Makes the clock read `milliseconds` now, and go on from there.
    public func set(milliseconds: Int64) { lock.withLock { offset = milliseconds - SystemClock().milliseconds() } }

    /// Back to the system's time.
    public func reset() { lock.withLock { offset = 0 } }
}
