import Hummingbird

// Part WebMap of the home (making a web map): its pages and actions.
extension HomeController {
    var webMapPages: [String: Page] { [:] }
    var webMapActions: [String: Action] { [:] }
}

extension HomeAssets {
    static var webMapScripts: [String: String] { [:] }
}
