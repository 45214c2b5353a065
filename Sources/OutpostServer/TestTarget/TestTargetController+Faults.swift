import Hummingbird

extension TestTargetController {
    /// `faults…` (stub: the fault helper's).
    func addFaultRoutes(to routes: RouteCollection<OutpostRequestContext>) {}
}
