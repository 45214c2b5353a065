import OutpostWire
import Synchronization

/// How many of one kind of heavy request run at once in this process: a geocoding batch
/// (docs/geocoding.md, "Service") or a route solve (docs/routing.md, "Service"). More at once
/// would hold the store's threads from every other request; one past the limit is answered
/// 429 with a `Retry-After` before taking any thread (`StoreCall.runHeavy`).
final class BusyGate: Sendable {
    let limit: Int
    let busyMessage: String
    fileprivate let running = Atomic<Int>(0)

    init(limit: Int = 2, busyMessage: String) {
        self.limit = limit
        self.busyMessage = busyMessage
    }

    /// Runs `body` when a place is free, else throws ArcGIS's 429 at once.
    func run<T>(_ body: () throws -> T) throws -> T {
        let count = running.add(1, ordering: .acquiringAndReleasing).newValue
        defer { running.subtract(1, ordering: .acquiringAndReleasing) }
        guard count <= limit else { throw ArcGISError.tooManyRequests(busyMessage, retryAfterSeconds: 1) }
        return try body()
    }

    /// A place held until the returned permit is released (or dropped): for work that outlives
    /// one call, a download streamed after its handler returned. Throws ArcGIS's 429 when full.
    func enter() throws -> Permit {
        let count = running.add(1, ordering: .acquiringAndReleasing).newValue
        guard count <= limit else {
            running.subtract(1, ordering: .acquiringAndReleasing)
            throw ArcGISError.tooManyRequests(busyMessage, retryAfterSeconds: 1)
        }
        return Permit(gate: self)
    }

    /// One place of the gate, given back once: by `release`, or when the permit goes.
    final class Permit: Sendable {
        let gate: BusyGate
        private let held = Atomic<Bool>(true)

        init(gate: BusyGate) { self.gate = gate }

        func release() {
            if held.exchange(false, ordering: .acquiringAndReleasing) { gate.running.subtract(1, ordering: .acquiringAndReleasing) }
        }

        deinit { release() }
    }

    /// Asynchronous work admitted as soon as a place is free, waiting at most `patience`; nil
    /// when none came free in time. For the server's own work that must not be skipped.
    func admitWhenFree<T>(patience: Duration, _ body: () async throws -> T) async throws -> T? {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while true {
            if running.add(1, ordering: .acquiringAndReleasing).newValue <= limit {
                defer { running.subtract(1, ordering: .acquiringAndReleasing) }
                return try await body()
            }
            running.subtract(1, ordering: .acquiringAndReleasing)
            guard clock.now < deadline else { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The same for asynchronous work: admitted (or refused) before it waits for anything.
    func admit<T>(_ body: () async throws -> T) async throws -> T {
        let count = running.add(1, ordering: .acquiringAndReleasing).newValue
        defer { running.subtract(1, ordering: .acquiringAndReleasing) }
        guard count <= limit else { throw ArcGISError.tooManyRequests(busyMessage, retryAfterSeconds: 1) }
        return try await body()
    }
}
