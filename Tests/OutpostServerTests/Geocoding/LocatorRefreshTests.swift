import Foundation
import OutpostGeocoding
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// Locators and networks follow their layers (docs/geocoding.md and docs/routing.md,
/// "Refresh"): the change tracking's adds, updates and deletes become the locator's, and a
/// network whose layer changed is built anew.
@Suite struct LocatorRefreshTests {
    static func best(_ store: some OutpostBackend, _ text: String) throws -> GeocodeCandidate? {
        guard let locator = try store.locators.locator(named: "TownAddresses") else { return nil }
        let search = LocatorSearch(index: StoreLocatorIndex(store: store.locators, locator: locator))
        return try search.findCandidates(search.parse(singleLine: text, fields: nil), maxLocations: 5).first
    }

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func aLocatorFollowsItsLayersAddsUpdatesAndDeletes(_ backend: String) throws {
        try Self.aLocatorFollowsItsLayersAddsUpdatesAndDeletes(LocatorStoreTests.newStore(backend))
    }

    static func aLocatorFollowsItsLayersAddsUpdatesAndDeletes(_ store: some OutpostBackend) throws {
        let built = try AddressTown.makeLocator(store)
        #expect(built.generation != nil && built.entryCount == 31)
        #expect(try LocatorRefresh.refresh(named: "townaddresses", in: store) == .current)

        // 11 Hill Street is new; 5 Station Road (object 15) becomes 5 Mill Road; 3 Church Lane
        // (object 23) goes; 7 Church Lane (object 27) gets a number no entry can have.
        let point = AddressTown.location(street: 0, number: 11)
        let edits = LayerEdits(
            layerId: 0,
            adds: [
                EditFeature(
                    attributes: ["NUM": "11", "STREET": "Hill Street", "TOWN": "Springfield", "POSTCODE": "90210"],
                    geometry: ["x": .double(point.x), "y": .double(point.y), "spatialReference": ["wkid": 4326]])
            ],
            updates: [EditFeature(attributes: ["OBJECTID": 15, "STREET": "Mill Road"]), EditFeature(attributes: ["OBJECTID": 27, "NUM": "rear"])],
            deletes: [.objectId(23)])
        _ = try store.edits.applyEdits(service: "Town", edits: [edits], options: EditOptions())
        #expect(try best(store, "11 Hill Street, Springfield")?.score != 100, "a built copy until it is refreshed")

        #expect(try LocatorRefresh.refresh(named: "TownAddresses", in: store) == .updated(upserted: 2, deleted: 2))
        #expect(try best(store, "11 Hill Street, Springfield")?.matchAddress == "11 Hill Street, Springfield, 90210")
        #expect(try best(store, "11 Hill Street, Springfield")?.score == 100)
        #expect(try best(store, "5 Mill Road, Springfield")?.score == 100)
        #expect(try best(store, "5 Station Road, Springfield")?.matchAddress != "5 Station Road, Springfield, 90210")
        #expect(try best(store, "3 Church Lane, Springfield")?.matchAddress != "3 Church Lane, Springfield, 90210")
        #expect(try best(store, "7 Church Lane, Springfield")?.matchAddress != "7 Church Lane, Springfield, 90210")
        let refreshed = try #require(try store.locators.locator(named: "TownAddresses"))
        #expect(refreshed.entryCount == 30 && (refreshed.generation ?? 0) > (built.generation ?? 0) && refreshed.builtAt >= built.builtAt)
        var rows = 0
        try store.locators.forEachEntryRow(locator: "TownAddresses") { _ in rows += 1 }
        #expect(rows == 30)
        #expect(try LocatorRefresh.refresh(named: "TownAddresses", in: store) == .current)
        // A refresh read before a build (or another refresh) wrote writes nothing.
        var stale = refreshed
        stale.builtAt -= 1
        #expect(try store.locators.updateLocator(refreshed, upserting: [], deleting: ["1"], replacing: stale) == nil)
        #expect(try store.locators.locator(named: "TownAddresses")?.entryCount == 30)

        // A locator stored before generations were recorded is built anew once.
        var old = refreshed
        old.generation = nil
        try store.locators.saveLocator(old, entries: [])
        #expect(try LocatorRefresh.refresh(named: "TownAddresses", in: store) == .rebuilt)
        #expect(try store.locators.locator(named: "TownAddresses")?.entryCount == 30)
        #expect(throws: StoreError.self) { try LocatorRefresh.refresh(named: "Nope", in: store) }
        // Compacting the change tracking forgets deletions: the locator is built anew.
        _ = try ReplicaAdministration(backend: store).compact()
        #expect(try store.locators.locator(named: "TownAddresses")?.generation == nil)
        #expect(try LocatorRefresh.refresh(named: "TownAddresses", in: store) == .rebuilt)
    }

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func aNetworkIsBuiltAnewWhenItsLayerChanged(_ backend: String) throws {
        try Self.aNetworkIsBuiltAnewWhenItsLayerChanged(LocatorStoreTests.newStore(backend))
    }

    static func aNetworkIsBuiltAnewWhenItsLayerChanged(_ store: some OutpostBackend) throws {
        let built = try StreetGrid.make(store)
        #expect(built.generation != nil)
        #expect(try NetworkRefresh.refresh(named: "StreetRoutes", in: store) == false)
        // An edit of another service is not this network's.
        try AddressTown.make(store)
        #expect(try NetworkRefresh.refresh(named: "StreetRoutes", in: store) == false)
        let east = StreetGrid.point(4, 0)
        let line: JSONValue = [
            "paths": [[[.double(StreetGrid.point(3, 0).x), .double(StreetGrid.point(3, 0).y)], [.double(east.x), .double(east.y)]]],
            "spatialReference": ["wkid": 4326],
        ]
        _ = try store.edits.applyEdits(
            service: "Streets", edits: [LayerEdits(layerId: 0, adds: [EditFeature(attributes: ["NAME": "Row 0 Street"], geometry: line)])],
            options: EditOptions())
        #expect(try NetworkRefresh.refresh(named: "StreetRoutes", in: store) == true)
        let rebuilt = try #require(try store.networks.network(named: "StreetRoutes"))
        #expect(rebuilt.edgeCount == built.edgeCount + 1 && rebuilt.buildId != built.buildId)
        #expect(try NetworkRefresh.refresh(named: "StreetRoutes", in: store) == false)

        // Its service gone, the network is kept but marked to be built anew, as is a locator.
        try LocatorBuilder.build(AddressTown.addresses, in: store)
        try store.schema.deleteService(named: "Streets")
        try store.schema.deleteService(named: "Town")
        #expect(throws: StoreError.self) { try NetworkRefresh.refresh(named: "StreetRoutes", in: store) }
        #expect(throws: StoreError.self) { try LocatorRefresh.refresh(named: "TownAddresses", in: store) }
        #expect(try store.networks.network(named: "StreetRoutes")?.generation == nil)
        #expect(try store.locators.locator(named: "TownAddresses").map { ($0.generation, $0.entryCount) } ?? (0, 0) == (nil, 31))
    }
}
