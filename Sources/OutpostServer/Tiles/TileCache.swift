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
        /// When the store read that answered it began.
        var read: ContinuousClock.Instant
    }

    private struct Sets {
        /// By lowercased name.
        var byName: [String: KnownSet] = [:]
        /// Other spellings requests used, to their lowercased names (no lowercasing per request).
        var spellings: [String: String] = [:]
        /// Bumped by `removeAll`: a set read from the store before it is not remembered after.
        var generation = 0
    }

    /// A store read of a set about to begin, to pass to `remember` with its answer.
    struct SetRead: Sendable {
        fileprivate let generation: Int
        fileprivate let began: ContinuousClock.Instant
    }

    let budget: Int
    /// How long a set read from the store is answered from memory before it is read again:
    /// another process of a PostgreSQL deployment may have deleted it, or published another
    /// set under its name, and this process hears of it no other way.
    let setLifetime: Duration
    private let state = Mutex(State())
    private let sets = Mutex(Sets())

    /// `budget`: bytes of tiles kept (64 MiB by default).
    init(budget: Int = 64 << 20, setLifetime: Duration = .seconds(5)) {
        self.budget = budget
        self.setLifetime = setLifetime
    }

    /// The set of that name whose store read began within `setLifetime`, if any.
    func set(named name: String) -> TileSet? {
        let now = ContinuousClock.now
        return sets.withLock { sets in
            var known = sets.byName[sets.spellings[name] ?? name]
            if known == nil {
                let lowercased = name.lowercased()
                known = sets.byName[lowercased]
                // Other spellings are remembered too, up to a bound (case variants are many).
                if known != nil, sets.spellings.count < 1024 { sets.spellings[name] = lowercased }
            }
            guard let known, now - known.read < setLifetime else { return nil }
            return known.set
        }
    }

    /// Call before reading a set from the store; give the answer to `remember`.
    func beginRead() -> SetRead {
        let now = ContinuousClock.now
        return SetRead(generation: sets.withLock { $0.generation }, began: now)
    }

    /// Remembers a set read from the store, unless everything was forgotten since the read
    /// began (the set may be the deleted one) or a read that began later was remembered.
    func remember(_ set: TileSet, from read: SetRead) {
        sets.withLock { sets in
            guard sets.generation == read.generation else { return }
            let key = set.name.lowercased()
            if let known = sets.byName[key], known.read > read.began { return }
            sets.byName[key] = KnownSet(set: set, read: read.began)
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
