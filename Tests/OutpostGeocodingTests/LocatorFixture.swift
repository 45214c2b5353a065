import OutpostGeocoding

/// A small town's locator: 20 address points, 4 centre-lines with ranges, 4 places (one without a locality), 3
/// localities and a postcode, made through `LocatorEntry.make` as the builder would.
enum LocatorFixture {
    static let springfield = ("Springfield", "90210")
    static let shelbyville = ("Shelbyville", "90300")
    static let stAlbans = ("St Albans", "AL1 3AB")

    static let entries: [LocatorEntry] = points + centerlines + places + localities

    static let known = KnownLocalities(entries: entries)

    static func entry(_ id: String) -> LocatorEntry { entries.first { $0.id == id }! }

    private static let points: [LocatorEntry] = [
        point("pa-hill-12", "12", "Hill St", springfield, x: 11, y: -5),
        point("pa-hill-12b", "12B", "Hill St", springfield, x: 12, y: -5),
        point("pa-hill-14", "14", "Hill St", springfield, x: 13, y: -5),
        point("pa-hill-15", "15", "Hill St", springfield, x: 14, y: 5),
        point("pa-shel-hill-12", "12", "Hill Street", shelbyville, x: 1011, y: 995),
        point("pa-main-7", "7", "N Main St", springfield, x: 295, y: 21),
        point("pa-shel-main-9", "9", "Main St", shelbyville, x: 1100, y: 1000),
        point("pa-marys-3", "3", "St Marys Road", stAlbans, x: 195, y: 8),
        point("pa-station-5", "5", "Station Rd", stAlbans, x: 250, y: 30),
        point("pa-eglise-1", "1", "Rue de l'Église", shelbyville, x: 598, y: 495),
        point("pa-eglise-3", "3", "Rue de l'Église", shelbyville, x: 590, y: 495),
        point("pa-haupt-20", "20", "Hauptstraße", shelbyville, x: 700, y: 700),
        point("pa-first-100", "100", "1st Ave", springfield, x: 40, y: 300),
        point("pa-oak-42", "42", "Oak Lane", springfield, x: 60, y: 320),
        point("pa-elm-8", "8", "Elm Ct", springfield, x: 80, y: 340),
        point("pa-high-10", "10", "High Street", stAlbans, x: 260, y: 40),
        point("pa-hillcrest-22", "22", "Hillcrest Drive", springfield, x: 90, y: 360),
        point("pa-sunset-11", "11", "Sunset Blvd", shelbyville, x: 800, y: 800),
        point("pa-market-4", "4", "Market Sq", stAlbans, x: 270, y: 50),
        point("pa-victoria-6", "6", "Victoria Cres.", springfield, x: 100, y: 380),
    ]

    private static let centerlines: [LocatorEntry] = [
        line(
            "sc-hill", "Hill St", springfield, [[0, 0], [100, 0]], HouseNumberRanges(leftFrom: 1, leftTo: 99, rightFrom: 2, rightTo: 100)),
        line(
            "sc-main", "N Main St", springfield, [[300, 0], [300, 100], [350, 100]],
            HouseNumberRanges(leftFrom: 1, leftTo: 29, rightFrom: 2, rightTo: 30)),
        line("sc-marys", "St Marys Road", stAlbans, [[200, 0], [200, 200]], HouseNumberRanges(rightFrom: 2, rightTo: 50)),
        line(
            "sc-eglise", "Rue de l'Église", shelbyville, [[600, 500], [500, 500]],
            HouseNumberRanges(leftFrom: 21, leftTo: 1, rightFrom: 20, rightTo: 2)),
    ]

    private static let places: [LocatorEntry] = [
        place("poi-library", "Springfield Public Library", "Springfield", x: 20, y: 20),
        place("poi-station", "Central Station", "St Albans", x: 240, y: 20),
        place("poi-cafe", "Café Rouge", "Shelbyville", x: 550, y: 510),
        // A place without a locality: asking one of it costs `localityUnknownToEntry`.
        try! LocatorEntry.make(
            id: "poi-fountain", kind: .place, fields: LocatorSourceFields(placeName: "Old Fountain"), location: PlanarPoint(x: 30, y: 30)),
    ]

    private static let localities: [LocatorEntry] = [
        area("lo-springfield", .locality, LocatorSourceFields(locality: "Springfield"), x: 50, y: 50),
        area("lo-shelbyville", .locality, LocatorSourceFields(locality: "Shelbyville"), x: 800, y: 800),
        area("lo-stalbans", .locality, LocatorSourceFields(locality: "St Albans"), x: 230, y: 30),
        area("po-90210", .postal, LocatorSourceFields(locality: "Springfield", postcode: "90210"), x: 50, y: 50),
    ]

    private static func point(_ id: String, _ number: String, _ street: String, _ town: (String, String), x: Double, y: Double) -> LocatorEntry {
        let fields = LocatorSourceFields(houseNumber: number, street: street, locality: town.0, postcode: town.1)
        return try! LocatorEntry.make(id: id, kind: .pointAddress, fields: fields, location: PlanarPoint(x: x, y: y))
    }

    private static func line(
        _ id: String, _ street: String, _ town: (String, String), _ polyline: [[Double]], _ ranges: HouseNumberRanges
    )
        -> LocatorEntry
    {
        let fields = LocatorSourceFields(street: street, locality: town.0, postcode: town.1, ranges: ranges)
        return try! LocatorEntry.make(id: id, kind: .streetCenterline, fields: fields, polyline: polyline)
    }

    private static func place(_ id: String, _ name: String, _ town: String, x: Double, y: Double) -> LocatorEntry {
        try! LocatorEntry.make(id: id, kind: .place, fields: LocatorSourceFields(locality: town, placeName: name), location: PlanarPoint(x: x, y: y))
    }

    private static func area(_ id: String, _ kind: LocatorEntry.Kind, _ fields: LocatorSourceFields, x: Double, y: Double) -> LocatorEntry {
        try! LocatorEntry.make(id: id, kind: kind, fields: fields, location: PlanarPoint(x: x, y: y))
    }
}
