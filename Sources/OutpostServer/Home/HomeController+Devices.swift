import Hummingbird

// Part Devices of the home (devices): its pages and actions.
extension HomeController {
    var devicePages: [String: Page] { [:] }
    var deviceActions: [String: Action] { [:] }
}

extension HomeAssets {
    static var deviceScripts: [String: String] { [:] }
}
