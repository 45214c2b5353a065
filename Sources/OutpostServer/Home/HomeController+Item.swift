import Hummingbird

// Part Item of the home (item pages): its pages and actions.
extension HomeController {
    var itemPages: [String: Page] { [:] }
    var itemActions: [String: Action] { [:] }
}

extension HomeAssets {
    static var itemScripts: [String: String] { [:] }
}
