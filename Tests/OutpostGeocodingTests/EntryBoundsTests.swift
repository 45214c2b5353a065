import Testing

@testable import OutpostGeocoding

/// What `LocatorEntry.make` refuses past the bounds (docs/geocoding.md, "Entries").
@Suite struct EntryBoundsTests {
    static let here = PlanarPoint(x: 0, y: 0)

    static func make(
        id: String = "x", _ kind: LocatorEntry.Kind = .pointAddress, _ fields: LocatorSourceFields, polyline: [[Double]] = []
    ) throws(LocatorEntryRefusal) -> LocatorEntry {
        try LocatorEntry.make(id: id, kind: kind, fields: fields, location: here, polyline: polyline)
    }

    @Test(arguments: [
        HouseNumberRanges(leftFrom: -1, leftTo: 9), HouseNumberRanges(rightFrom: 2, rightTo: 1_000_000),
        HouseNumberRanges(leftFrom: Int.min, leftTo: Int.max),
    ])
    func rangesOutside0To999999AreRefused(_ ranges: HouseNumberRanges) {
        #expect(throws: LocatorEntryRefusal.houseNumberRangeOutOfBounds) {
            try Self.make(.streetCenterline, LocatorSourceFields(street: "Hill St", ranges: ranges), polyline: [[0, 0], [1, 0]])
        }
    }

    @Test func theWidestRangeIsKept() throws {
        let ranges = HouseNumberRanges(leftFrom: 0, leftTo: 999_999)
        let entry = try Self.make(.streetCenterline, LocatorSourceFields(street: "Hill St", ranges: ranges), polyline: [[0, 0], [1, 0]])
        #expect(entry.ranges == ranges)
    }

    @Test func aLineOfInfiniteLengthIsRefused() {
        #expect(throws: LocatorEntryRefusal.noGeometry) {
            try Self.make(.streetCenterline, LocatorSourceFields(street: "Hill St"), polyline: [[-1e308, 0], [1e308, 0]])
        }
    }

    /// Every entry's magic key reads back: ids over 256 bytes (or empty) are refused.
    @Test func anIdTheKeyCannotCarryIsRefused() throws {
        let fields = LocatorSourceFields(houseNumber: "1", street: "Hill St")
        #expect(throws: LocatorEntryRefusal.unusableId) { try Self.make(id: String(repeating: "é", count: 129), .pointAddress, fields) }
        #expect(throws: LocatorEntryRefusal.unusableId) { try Self.make(id: "", .pointAddress, fields) }
        let longest = try Self.make(id: String(repeating: "é", count: 128), .pointAddress, fields)
        let key = MagicKey(entryId: longest.id, kind: longest.kind)
        #expect(MagicKey(encoded: key.encoded) == key)
    }

    @Test(arguments: [
        (LocatorEntry.Kind.pointAddress, LocatorSourceFields(houseNumber: "1", street: Self.words(21)), "street"),
        (.locality, LocatorSourceFields(locality: Self.words(21)), "locality"), (.place, LocatorSourceFields(placeName: Self.words(21)), "placeName"),
        (.postal, LocatorSourceFields(postcode: String(repeating: "9", count: 41)), "postcode"),
        (.postal, LocatorSourceFields(postcode: Self.words(20)), "postcode"),
    ])
    func aComponentPastTheBoundsIsRefused(_ kind: LocatorEntry.Kind, _ fields: LocatorSourceFields, _ field: String) {
        #expect(throws: LocatorEntryRefusal.componentTooLong(field: field)) { try Self.make(kind, fields) }
    }

    @Test func aComponentAtTheBoundsIsKept() throws {
        #expect(try Self.make(.locality, LocatorSourceFields(locality: Self.words(20))).locality.count == 20)
        #expect(try Self.make(.postal, LocatorSourceFields(postcode: String(repeating: "9", count: 40))).postcode?.count == 40)
    }

    /// A postcode read from a full address keeps its space for display.
    @Test func aPostcodeFromAFullAddressIsShownWithItsSpace() throws {
        let fields = LocatorSourceFields(fullAddress: "3 St Marys Rd, St Albans AL1 3AB")
        let entry = try Self.make(.pointAddress, fields)
        #expect(entry.postcode == "al13ab")
        #expect(entry.display.postcode == "AL1 3AB")
        #expect(Postcode.displayForm("k1m1m4") == "K1M 1M4")
        #expect(Postcode.displayForm("90210") == "90210")
    }

    static func words(_ count: Int) -> String { (0..<count).map { "w\($0)" }.joined(separator: " ") }
}
