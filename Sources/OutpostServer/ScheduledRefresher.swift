import Logging
import NIOPosix
import OutpostService
import OutpostStorage
import OutpostStore
import OutpostSync
import OutpostWire
import ServiceLifecycle

/// Runs map areas' `packageRefreshSchedule` (docs/map-areas.md, "Scheduled updates"): every
/// `interval`, each area whose schedule has fired since its last scheduled refresh has its
/// packages refreshed once — however many firings were missed while the server was down — and
/// the time recorded in the area (`properties.lastScheduledRefresh`), so a restart neither
/// repeats nor loses a refresh. A service of the application's service group.
struct ScheduledRefresher<Backend: OutpostBackend>: Service {
    let store: Backend
    let files: ResultFiles
    let maxExportTiles: Int
    /// Token security: areas of owners who are not users are then never refreshed.
    let requireAuth: Bool
    let interval: Duration
    let logger: Logger

    func run() async throws {
        // Store calls block: on NIO's thread pool, not the cooperative threads.
        try await runEvery(interval) { _ = try? await NIOThreadPool.singleton.runIfActive { [self] in tick() } }
    }

    /// One pass: refreshes every area that is due; returns their ids.
    @discardableResult
    func tick() -> [String] {
        let now = store.clock.milliseconds()
        var refreshed: [String] = []
        guard let items = try? store.portal.items() else { return [] }
        for var area in items where area.type == "Map Area" {
            guard let text = area.properties["packageRefreshSchedule"]?.stringValue, let schedule = try? RefreshSchedule(text) else { continue }
            let last = area.properties["lastScheduledRefresh"]?.int64Value ?? area.created
            guard let due = schedule.next(after: last), due <= now else { continue }
            let packages = ((try? store.portal.relationships(of: area.id)) ?? []).filter {
                $0.type == MapAreas<Backend>.areaToPackage && $0.origin == area.id
            }.map(\.destination)
            // Package URLs name the host they were made for: the packager reads services from them.
            let server =
                packages.compactMap { try? store.portal.item(id: $0)?.properties["url"]?.stringValue }.first
                .flatMap { $0.components(separatedBy: "/arcgis/rest/services/").first } ?? ""
            // The refresh runs with the area's owner's rights, as if they had asked for it: a
            // package or relationship someone else planted is refused package by package.
            guard let (caller, user) = owner(of: area) else {
                logger.warning("scheduled refresh of map area \(area.id) skipped: its owner '\(area.owner)' is not a user")
                continue
            }
            let packager = MapAreaPackager(store: store, files: files, server: server, maxExportTiles: maxExportTiles, caller: caller, user: user)
            let results = packager.refresh(packages: packages, progress: { _ in })
            if case .object(var properties) = area.properties {
                properties["lastScheduledRefresh"] = .int(now)
                area.properties = .object(properties)
                try? store.portal.updateItem(area, data: nil)
            }
            let failed = results.arrayValue?.filter { $0["state"] == "failed" }.count ?? 0
            logger.info("scheduled refresh of map area \(area.id): \(packages.count) packages, \(failed) failed")
            refreshed.append(area.id)
        }
        return refreshed
    }

    /// Who a scheduled refresh acts as: the area's owner; anyone while token security is off
    /// (every caller is unrestricted then); nobody when the owner is not a user.
    func owner(of area: PortalItem) -> (PortalCaller, ServerUser?)? {
        if let user = try? store.users.user(named: area.owner) { return (.user(user), user) }
        return requireAuth ? nil : (.unrestricted, nil)
    }
}
