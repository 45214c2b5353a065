import Logging
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostWire
import ServiceLifecycle

/// Runs map areas' `packageRefreshSchedule` (`ScheduledPackageRefresh`, docs/map-areas.md,
/// "Scheduled updates") every `interval` on the blocking pool while the server runs. A
/// service of the application's service group: it stops at graceful shutdown.
struct ScheduledRefresher<Backend: OutpostBackend>: Service {
    let store: Backend
    let files: ResultFiles
    let maxExportTiles: Int
    /// Token security: areas of owners who are not users are then never refreshed.
    let requireAuth: Bool
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try await runEvery(interval) { _ = try? await StoreCall.run { [self] in tick() } }
    }

    /// One pass: refreshes every area that is due; returns their ids.
    @discardableResult
    func tick() -> [String] {
        ScheduledPackageRefresh(backend: store, files: files, maxExportTiles: maxExportTiles, logger: logger).refreshDue(actingAs: owner(of:))
    }

    /// Who a scheduled refresh acts as: the area's owner, as if they had asked for it; anyone
    /// while token security is off (every caller is unrestricted then); nobody when the owner
    /// is not a user.
    func owner(of area: PortalItem) -> (PortalCaller, ServerUser?)? {
        if let user = try? store.users.user(named: area.owner) { return (.user(user), user) }
        return requireAuth ? nil : (.unrestricted, nil)
    }
}
