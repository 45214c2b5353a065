import Hummingbird

// The organisation page's members and sessions.
extension HomeController {
    var memberActions: [String: Action] { [:] }

    /// The members section of `organization.html` (markup, escaped).
    func membersSection(_ home: HomeRequest) async throws -> String { "" }
}
