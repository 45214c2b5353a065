import Hummingbird

extension TestTargetController {
    /// `journal…` (stub: the journal helper's).
    func addJournalRoutes(to routes: RouteCollection<OutpostRequestContext>) {}
}
