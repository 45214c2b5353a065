import NIOCore
import OutpostWire
import Synchronization

/// Recently served tiles, in memory: a tile set never changes after import, so a tile read
/// once is answered again without a store call (no thread hop, no SQLite), as a static file
/// server answers from the page cache. Bounded by bytes; the oldest entries go first. A set
/// is read again from the store after `setLifetime`; its tiles are keyed by its import time.
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

    private struct KnownSet {
        var set: TileSet
        var read: ContinuousClock.Instant
    }

    private struct Sets {
        var byName: [String: KnownSet] = [:]
        /// Bumped by `removeAll`: a set read from the store before it is not remembered after.
        var generation = 0
    }

    let budget: Int
    /// How long a set read from the store is answered from memory before it is read again:
    /// another process of a PostgreSQL deployment may have deleted it, or published another
    /// set under its name, and this process hears of it no other way.
    let setLifetime: Duration
    private let state = Mutex(State())
    /// Sets seen, by the names requests used and by their lowercased names.
    private let sets = Mutex(Sets())

    /// `budget`: bytes of tiles kept (64 MiB by default).
    init(budget: Int = 64 << 20, setLifetime: Duration = .seconds(5)) {
        self.budget = budget
        self.setLifetime = setLifetime
    }

    /// The set of that name read from the store within `setLifetime`, if any.
    func set(named name: String) -> TileSet? {
        sets.withLock { sets in
            guard let known = sets.byName[name] ?? sets.byName[name.lowercased()], ContinuousClock.now - known.read < setLifetime else {
                return nil
            }
            // Other spellings are remembered too, up to a bound (case variants are many).
            if sets.byName[name] == nil, sets.byName.count < 1024 { sets.byName[name] = known }
            return known.set
        }
    }

    /// The generation to pass to `remember` with a set read from the store after asking it.
    var generation: Int { sets.withLock { $0.generation } }

    /// Remembers a set read from the store, unless everything was forgotten since
    /// `generation` was asked (the set may be the deleted one). Its other spellings go: they
    /// may name an older read.
    func remember(_ set: TileSet, readIn generation: Int) {
        sets.withLock { sets in
            guard sets.generation == generation else { return }
            let key = set.name.lowercased()
            sets.byName = sets.byName.filter { $0.key.lowercased() != key }
            sets.byName[key] = KnownSet(set: set, read: .now)
        }
    }

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

    /// Forgets every tile and set (a test target's snapshot restore, a deleted tile service:
    /// sets may have come or gone).
    func removeAll() {
        state.withLock { $0 = State() }
        sets.withLock { $0 = Sets(generation: $0.generation + 1) }
    }

    /// Tiles answered by the fast path (tests and metrics tell its answers from the router's by it).
    let fastAnswers = Atomic<Int>(0)
}
