import Logging
import OutpostStorage
import OutpostSync
import OutpostWire

/// Map areas' `packageRefreshSchedule` (docs/map-areas.md, "Scheduled updates"): each area
/// whose schedule has fired since its last scheduled refresh has its packages refreshed once —
/// however many firings were missed while the server was down — and the time recorded in the
/// area (`properties.lastScheduledRefresh`), so a restart neither repeats nor loses a refresh.
/// Whoever hosts it runs `refreshDue` now and then (the server: `ScheduledRefresher`).
public struct ScheduledPackageRefresh<Backend: OutpostBackend>: Sendable {
    public let backend: Backend
    public let files: ResultFiles
    public let maxExportTiles: Int
    public let logger: Logger

    public init(backend: Backend, files: ResultFiles, maxExportTiles: Int, logger: Logger) {
        self.backend = backend
        self.files = files
        self.maxExportTiles = maxExportTiles
        self.logger = logger
    }

    /// One pass, by the backend's clock: refreshes every area that is due; returns their ids.
    /// Each refresh acts as `actingAs` says for the area (its owner, as if they had asked);
    /// an area it gives no one for is skipped. Blocking: call it on the blocking pool.
    @discardableResult
    public func refreshDue(actingAs: (PortalItem) -> (PortalCaller, ServerUser?)?) -> [String] {
        let now = backend.clock.milliseconds()
        var refreshed: [String] = []
        guard let items = try? backend.portal.items() else { return [] }
        for var area in items where area.type == "Map Area" {
            guard let text = area.properties["packageRefreshSchedule"]?.stringValue, let schedule = try? RefreshSchedule(text) else { continue }
            let last = area.properties["lastScheduledRefresh"]?.int64Value ?? area.created
            guard let due = schedule.next(after: last), due <= now else { continue }
            let packages = ((try? backend.portal.relationships(of: area.id)) ?? []).filter {
                $0.type == MapAreas<Backend>.areaToPackage && $0.origin == area.id
            }.map(\.destination)
            // Package URLs name the host they were made for: the packager reads services from them.
            let server =
                packages.compactMap { try? backend.portal.item(id: $0)?.properties["url"]?.stringValue }.first
                .flatMap { $0.components(separatedBy: "/arcgis/rest/services/").first } ?? ""
            // A package or relationship someone else planted is refused package by package.
            guard let (caller, user) = actingAs(area) else {
                logger.warning("scheduled refresh of map area \(area.id) skipped: its owner '\(area.owner)' is not a user")
                continue
            }
            let packager = MapAreaPackager(store: backend, files: files, server: server, maxExportTiles: maxExportTiles, caller: caller, user: user)
            let results = packager.refresh(packages: packages, progress: { _ in })
            if case .object(var properties) = area.properties {
                properties["lastScheduledRefresh"] = .int(now)
                area.properties = .object(properties)
                try? backend.portal.updateItem(area, data: nil)
            }
            let failed = results.arrayValue?.filter { $0["state"] == "failed" }.count ?? 0
            logger.info("scheduled refresh of map area \(area.id): \(packages.count) packages, \(failed) failed")
            refreshed.append(area.id)
        }
        return refreshed
    }
}
