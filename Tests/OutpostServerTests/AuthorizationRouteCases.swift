/// The matrix's requests of the fixture's network (`StreetRoutes`, an `NAServer`, made by
/// `AuthorizationSession.makeObjects` from `StreetGrid`).
extension MatrixCase {
    static let network = "/arcgis/rest/services/StreetRoutes/NAServer"

    static var routeCases: [MatrixCase] {
        [
            .read("NAServer") { _ in "\(network)?f=json" },
            .read("NAServer/Route") { _ in "\(network)/Route?f=json" },
            .read("NAServer/Route/solve") { _ in "\(network)/Route/solve?f=json&stops=13.4,52.5;13.403,52.503" },
            .read("NAServer/exportNetwork") { _ in "\(network)/exportNetwork" },
        ]
    }
}
