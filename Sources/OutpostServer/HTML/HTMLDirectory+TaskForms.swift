extension HTMLDirectory {
    /// The small forms of a `GeocodeServer`'s and a route's operations (docs/geocoding.md and
    /// docs/routing.md, "Service"): what a person tries in the directory before an app asks.
    static let taskOperations: [String: Operation] = [
        "findAddressCandidates": Operation(
            name: "findAddressCandidates", method: "GET",
            inputs: [
                .text("SingleLine"), .text("Address"), .text("City"), .text("Postal"), .text("outFields", "*"), .text("maxLocations"),
                .text("location"), .text("distance"), .area("searchExtent"), .text("outSR"), .text("minScore"),
            ]),
        "suggest": Operation(name: "suggest", method: "GET", inputs: [.text("text"), .text("maxSuggestions"), .text("location")]),
        "reverseGeocode": Operation(
            name: "reverseGeocode", method: "GET", inputs: [.text("location", "13.4,52.52"), .text("distance"), .text("outSR")]),
        "solve": Operation(
            name: "solve", method: "GET",
            inputs: [
                .area("stops"), .area("barriers"), .choice("impedanceAttributeName", ["TravelTime", "Length", "Cost"]),
                .choice("returnDirections", ["true", "false"]), .choice("directionsLanguage", ["en", "de", "fr"]),
                .choice("findBestSequence", ["false", "true"]), .text("outSR"),
            ]),
    ]
}
