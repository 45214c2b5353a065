/// The matrix's requests of the demo's locator (`DemoPlaces`, a `GeocodeServer`).
extension MatrixCase {
    static let locator = "/arcgis/rest/services/DemoPlaces/GeocodeServer"

    static var geocodeCases: [MatrixCase] {
        [
            .read("GeocodeServer") { _ in "\(locator)?f=json" },
            .read("GeocodeServer/findAddressCandidates") { _ in "\(locator)/findAddressCandidates?f=json&SingleLine=Berlin" },
            .read("GeocodeServer/suggest") { _ in "\(locator)/suggest?f=json&text=Ber" },
            .read("GeocodeServer/reverseGeocode") { _ in "\(locator)/reverseGeocode?f=json&location=13.3996,52.5238" },
            .post("GeocodeServer/geocodeAddresses") { _, _ in
                Probe(
                    path: "\(locator)/geocodeAddresses",
                    fields: [("f", "json"), ("addresses", #"{"records":[{"attributes":{"OBJECTID":1,"SingleLine":"Berlin"}}]}"#)])
            },
            .read("GeocodeServer/exportLocator") { _ in "\(locator)/exportLocator" },
        ]
    }
}
