import Hummingbird

// The organisation page's operations: health, storage, jobs, backups.
extension HomeController {
    var operationActions: [String: Action] { [:] }

    /// The operations section of `organization.html` (markup, escaped).
    func operationsSection(_ home: HomeRequest) async throws -> String { "" }
}
