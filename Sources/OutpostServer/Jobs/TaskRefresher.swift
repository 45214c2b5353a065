import Logging
import OutpostService
import OutpostStorage
import ServiceLifecycle

/// Keeps every locator and route network in step with its layer (docs/geocoding.md and
/// docs/routing.md, "Refresh"): every `interval`, `LocatorRefresh` follows each locator's
/// layer's changes and `NetworkRefresh` builds anew each network whose layer changed. It runs
/// on the heavy reads' threads (`StoreCall.heavyPool`), one pass at a time, so a long rebuild
/// never holds a thread the store's requests need. A service of the application's service
/// group: it stops at graceful shutdown.
struct TaskRefresher<Backend: OutpostBackend>: Service {
    let store: Backend
    let interval: Duration
    let logger: Logger
    let passes = BusyGate(limit: 1, busyMessage: "a refresh of locators and networks is running")

    func run() async throws {
        try await runEvery(interval) { _ = try? await StoreCall.runHeavy(passes) { [self] in tick() } }
    }

    /// A pass as soon as the running one (if any) ends, waiting at most `patience`: what a test
    /// target's moved clock asks, so its refresh is never skipped for a periodic pass.
    func tickWhenFree(patience: Duration = .seconds(60)) async -> [String] {
        do {
            return try await StoreCall.runHeavyWhenFree(passes, patience: patience) { [self] in tick() } ?? []
        } catch {
            logger.warning("refresh after a moved clock failed", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// One pass: returns the locators and networks that changed.
    @discardableResult
    func tick() -> [String] {
        var changed: [String] = []
        for locator in (try? store.locators.locators()) ?? [] {
            do {
                let outcome = try LocatorRefresh.refresh(named: locator.name, in: store)
                guard outcome != .current else { continue }
                logger.info("locator refreshed", metadata: ["locator": "\(locator.name)", "outcome": "\(outcome)"])
                changed.append(locator.name)
            } catch {
                logger.warning("locator refresh failed", metadata: ["locator": "\(locator.name)", "error": "\(error)"])
            }
        }
        for network in (try? store.networks.networks()) ?? [] {
            do {
                guard try NetworkRefresh.refresh(named: network.name, in: store) else { continue }
                logger.info("network rebuilt from its changed layer", metadata: ["network": "\(network.name)"])
                changed.append(network.name)
            } catch {
                logger.warning("network refresh failed", metadata: ["network": "\(network.name)", "error": "\(error)"])
            }
        }
        return changed
    }
}
