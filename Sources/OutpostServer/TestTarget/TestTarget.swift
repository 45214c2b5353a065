import Foundation
import OutpostSync
import OutpostWire
import Synchronization

/// What `serve --test-target` adds to a server (docs/testing-your-app.md): a clock a test can
/// move, fault rules, a request journal and, through the backend, snapshots of the whole
/// state; driven through the control API (`TestTargetController`, below `/_outpost`). A
/// server built without one has no control routes and no fault can fire.
public final class TestTarget: Sendable {
    /// The clock the store was opened with: every time Outpost records or compares reads it.
    public let clock: SettableClock
    /// `--seed`: ids drawn from it (`IdentifierSeed`), and fault probabilities.
    public let seed: UInt64?
    public let faults: FaultBoard
    public let journal: RequestJournal
    /// What runs when the clock moves: the background services' passes (scheduled map-area
    /// refreshes, result-file expiry), run at once rather than at their next interval.
    private let housekeeping = Mutex<[@Sendable () async -> [String]]>([])
    /// What in memory a restore of a snapshot leaves stale, forgotten after one (the tile cache).
    let afterRestore = Mutex<[@Sendable () -> Void]>([])

    /// A test target whose fault probabilities follow `seed` (nil: random). Ids follow it too
    /// when `seedsIdentifiers`: that is process-wide (`IdentifierSeed`), so only one seeded
    /// server may run in a process at a time (`serve --seed` does; tests running servers side
    /// by side leave it off, or two stores could be handed the same ids).
    public init(
        clock: SettableClock = SettableClock(), seed: UInt64? = nil, seedsIdentifiers: Bool = false,
        journalCapacity: Int = RequestJournal.defaultCapacity
    ) {
        self.clock = clock
        self.seed = seed
        faults = FaultBoard(seed: seed)
        journal = RequestJournal(capacity: journalCapacity, clock: clock)
        if let seed, seedsIdentifiers { IdentifierSeed.seed(seed) }
    }

    /// Adds a pass to run whenever the clock is moved; it returns what it did (refreshed areas, …).
    func onClockMoved(_ pass: @escaping @Sendable () async -> [String]) {
        housekeeping.withLock { $0.append(pass) }
    }

    /// Runs every housekeeping pass now, in the order added; what they did.
    func runHousekeeping() async -> [String] {
        var done: [String] = []
        for pass in housekeeping.withLock({ $0 }) { done += await pass() }
        return done
    }
}
