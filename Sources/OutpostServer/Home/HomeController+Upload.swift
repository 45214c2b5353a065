import Hummingbird

// Part Upload of the home (uploads): its pages and actions.
extension HomeController {
    var uploadPages: [String: Page] { [:] }
    var uploadActions: [String: Action] { [:] }
}

extension HomeAssets {
    static var uploadScripts: [String: String] { [:] }
}
