import Foundation
import OutpostSync
import Synchronization

/// Every request a test target answered but the control API's, oldest first, in a bounded
/// ring: at most `capacity` entries and `maximumBytes` of them (values are capped at 4 KiB
/// each), the oldest dropped first. Sequence numbers start at 1 and are never reused, so a
/// poller's `since` stays valid across drops and clears.
public final class RequestJournal: Sendable {
    public static let defaultCapacity = 10_000
    /// The most memory the entries may hold by default, roughly: 64 MiB.
    public static let defaultMaximumBytes = 64 << 20

    struct State {
        var ring: [JournalEntry?]
        /// Index in `ring` of the oldest entry.
        var head = 0
        var count = 0
        var bytes = 0
        var lastSeq: Int64 = 0
    }

    let capacity: Int
    let maximumBytes: Int
    /// The server's clock: entries' `time`.
    let clock: any WallClock
    private let state: Mutex<State>

    public init(capacity: Int, clock: any WallClock = SystemClock(), maximumBytes: Int = defaultMaximumBytes) {
        self.capacity = max(1, capacity)
        self.maximumBytes = maximumBytes
        self.clock = clock
        state = Mutex(State(ring: Array(repeating: nil, count: max(1, capacity))))
    }

    /// Keeps `entry`, numbered next; the oldest go when the ring or the byte budget is full.
    @discardableResult
    func record(_ entry: JournalEntry) -> Int64 {
        var entry = entry
        let size = entry.bytes
        return state.withLock { state in
            state.lastSeq += 1
            entry.seq = state.lastSeq
            while state.count > 0 && (state.count == capacity || state.bytes + size > maximumBytes) {
                state.bytes -= state.ring[state.head]?.bytes ?? 0
                state.ring[state.head] = nil
                state.head = (state.head + 1) % capacity
                state.count -= 1
            }
            state.ring[(state.head + state.count) % capacity] = entry
            state.count += 1
            state.bytes += size
            return entry.seq
        }
    }

    /// The entries `query` matches, oldest first: after `since` the first `limit`, else the
    /// last `limit`; and the sequence number to poll on from (`since` of the next call).
    func entries(matching query: JournalQuery) -> (entries: [JournalEntry], last: Int64) {
        state.withLock { state in
            var found: [JournalEntry] = []
            for offset in 0..<state.count {
                guard let entry = state.ring[(state.head + offset) % capacity], entry.seq > (query.since ?? 0), query.matches(entry) else {
                    continue
                }
                found.append(entry)
                if query.since != nil, let limit = query.limit, found.count == limit {
                    return (found, entry.seq)
                }
            }
            if let limit = query.limit, found.count > limit { found.removeFirst(found.count - limit) }
            return (found, max(state.lastSeq, query.since ?? 0))
        }
    }

    /// How many entries `query` matches (`since` applies; `limit` does not).
    func count(matching query: JournalQuery) -> Int {
        state.withLock { state in
            (0..<state.count).count { offset in
                guard let entry = state.ring[(state.head + offset) % capacity] else { return false }
                return entry.seq > (query.since ?? 0) && query.matches(entry)
            }
        }
    }

    /// Drops every entry; numbering goes on.
    func clear() {
        state.withLock { state in
            state.ring = Array(repeating: nil, count: capacity)
            (state.head, state.count, state.bytes) = (0, 0, 0)
        }
    }

    /// The sequence number of the latest entry recorded (0: none yet).
    var lastSeq: Int64 { state.withLock { $0.lastSeq } }

    /// The entries held and their approximate size in bytes.
    var usage: (count: Int, bytes: Int) { state.withLock { ($0.count, $0.bytes) } }
}
