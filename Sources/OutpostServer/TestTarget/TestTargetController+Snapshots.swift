import Hummingbird

extension TestTargetController {
    /// `snapshots…` (stub: the snapshot helper's).
    func addSnapshotRoutes(to routes: RouteCollection<OutpostRequestContext>) {}
}
