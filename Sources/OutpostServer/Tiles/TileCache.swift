import NIOCore
import OutpostWire
import Synchronization

/// Recently served tiles, in memory: a tile set never changes after import, so a tile read
/// once is answered again without a store call (no thread hop, no SQLite), as a static file
/// server answers from the page cache. Bounded by bytes; the oldest entries go first.
/// The tile fast path (`TileFastPath`) answers from it too.
final class TileCache: Sendable {
    struct Key: Hashable, Sendable {
        /// The set's name as stored (requests may spell it in any case).
        var set: String
        /// The set's import time: a set removed and imported again under the same name is another set.
        var version: Int64
        var level: Int
        var row: Int
        var column: Int
    }

    private struct State {
        var tiles: [Key: ByteBuffer] = [:]
        /// Keys in the order they came in, from `head` on (older ones are gone).
        var order: [Key] = []
        var head = 0
        var bytes = 0
    }

    let budget: Int
    private let state = Mutex(State())
    /// Sets seen, by the names requests used and by their lowercased names (a set never
    /// changes once imported).
    private let sets = Mutex<[String: TileSet]>([:])

    /// `budget`: bytes of tiles kept (64 MiB by default).
    init(budget: Int = 64 << 20) {
        self.budget = budget
    }

    func set(named name: String) -> TileSet? {
        sets.withLock { sets in
            if let set = sets[name] { return set }
            guard let set = sets[name.lowercased()] else { return nil }
            // Other spellings are remembered too, up to a bound (case variants are many).
            if sets.count < 1024 { sets[name] = set }
            return set
        }
    }

    func remember(_ set: TileSet) { sets.withLock { $0[set.name.lowercased()] = set } }

    func tile(_ key: Key) -> ByteBuffer? {
        state.withLock { $0.tiles[key] }
    }

    func store(_ bytes: ByteBuffer, for key: Key) {
        guard bytes.readableBytes <= budget / 16 else { return }
        state.withLock { state in
            guard state.tiles.updateValue(bytes, forKey: key) == nil else { return }
            state.order.append(key)
            state.bytes += bytes.readableBytes
            while state.bytes > budget, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if let removed = state.tiles.removeValue(forKey: oldest) { state.bytes -= removed.readableBytes }
            }
            // Drop the consumed prefix now and then, so the queue does not grow without end.
            if state.head > 4096, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    var byteCount: Int { state.withLock { $0.bytes } }

    /// Forgets every tile and set (a test target's snapshot restore: sets may have come or gone).
    func removeAll() {
        state.withLock { $0 = State() }
        sets.withLock { $0 = [:] }
    }

    /// Tiles answered by the fast path (tests and metrics tell its answers from the router's by it).
    let fastAnswers = Atomic<Int>(0)
}
