import Hummingbird

// Part Content of the home (content): its pages and actions.
extension HomeController {
    var contentPages: [String: Page] { [:] }
    var contentActions: [String: Action] { [:] }
}

extension HomeAssets {
    static var contentScripts: [String: String] { [:] }
}
