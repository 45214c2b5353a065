import Foundation
import OutpostGeoPackage
import OutpostGeocoding
import OutpostPostgres
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Synchronization
import Testing

/// On PostgreSQL a locator file is written from pages read outside any transaction
/// (docs/geocoding.md, "Offline"): a refresh that commits meanwhile has the file written
/// again, so no file mixes two states; one that keeps committing is answered 503. (SpatiaLite
/// reads every page in one read transaction, which no refresh can commit into.)
@Suite struct LocatorExportRaceTests {
    /// A real store whose export calls `meanwhile` after its first row, up to `times` times:
    /// a refresh committing while a file is written.
    struct RefreshedMidExport<Base: LocatorStore>: LocatorStore {
        let base: Base
        let times: Int
        let meanwhile: @Sendable () throws -> Void
        let fired = Fired()

        final class Fired: Sendable {
            let count = Mutex(0)
        }

        func locators() throws -> [StoredLocator] { try base.locators() }
        func locator(named name: String) throws -> StoredLocator? { try base.locator(named: name) }
        func saveLocator(_ locator: StoredLocator, entries: [LocatorEntry]) throws { try base.saveLocator(locator, entries: entries) }
        func updateLocator(
            _ locator: StoredLocator, upserting entries: [LocatorEntry], deleting ids: [String], replacing previous: StoredLocator
        ) throws -> Int? {
            try base.updateLocator(locator, upserting: entries, deleting: ids, replacing: previous)
        }
        func deleteLocator(named name: String) throws { try base.deleteLocator(named: name) }
        func gatherEntries(locator name: String, terms: SearchTerms, limit: Int) throws -> [LocatorEntry] {
            try base.gatherEntries(locator: name, terms: terms, limit: limit)
        }
        func entries(locator name: String, in box: LocatorBox, limit: Int) throws -> [LocatorEntry] {
            try base.entries(locator: name, in: box, limit: limit)
        }
        func entry(locator name: String, kind: LocatorEntry.Kind, id: String) throws -> LocatorEntry? {
            try base.entry(locator: name, kind: kind, id: id)
        }
        func forEachEntryRow(locator name: String, _ body: (LocatorEntryRow) throws -> Void) throws {
            var first = true
            try base.forEachEntryRow(locator: name) { row in
                try body(row)
                guard first else { return }
                first = false
                let fire = fired.count.withLock { count in
                    count += 1
                    return count <= times
                }
                if fire { try meanwhile() }
            }
        }
    }

    /// One more Hill Street address, and the locator refreshed to hold it.
    static func addAnAddressAndRefresh(_ store: some OutpostBackend, number: Int) throws {
        let point = AddressTown.location(street: 0, number: number)
        let add = EditFeature(
            attributes: ["NUM": .string(String(number)), "STREET": "Hill Street", "TOWN": "Springfield", "POSTCODE": "90210"],
            geometry: ["x": .double(point.x), "y": .double(point.y), "spatialReference": ["wkid": 4326]])
        _ = try store.edits.applyEdits(service: "Town", edits: [LayerEdits(layerId: 0, adds: [add])], options: EditOptions())
        _ = try LocatorRefresh.refresh(named: "TownAddresses", in: store)
    }

    /// The store as seen by an export during which a refresh adds one more address after the
    /// first row, `times` times.
    static func racing(_ store: PostgresBackend, times: Int) -> RefreshedMidExport<PostgresLocators> {
        let added = RefreshedMidExport<PostgresLocators>.Fired()
        return RefreshedMidExport(base: store.locators, times: times) {
            let number = added.count.withLock { count in
                count += 1
                return 100 + count
            }
            try addAnAddressAndRefresh(store, number: number)
        }
    }

    @Test func aRefreshDuringTheWriteHasTheFileWrittenAgainWhole() throws {
        let store = try TestPostgres.makeBackend()
        let before = try AddressTown.makeLocator(store)
        let racing = Self.racing(store, times: 1)
        let path = "\(TestFolders.make("locator-race"))/town.locator"
        let written = try LocatorAnswers(store: racing).writeFile(named: "TownAddresses", to: path)
        let after = try store.locators.locator(named: "TownAddresses")
        #expect(written != before && written == after, "the state after the refresh")
        let file = try LocatorFile(path: path)
        #expect(file.entryCount == before.entryCount + 1 && written.entryCount == before.entryCount + 1)
    }

    @Test func aLocatorThatKeepsChangingIsAnswered503() throws {
        let store = try TestPostgres.makeBackend()
        _ = try AddressTown.makeLocator(store)
        let racing = Self.racing(store, times: .max)
        let path = "\(TestFolders.make("locator-race"))/town.locator"
        #expect { try LocatorAnswers(store: racing).writeFile(named: "TownAddresses", to: path) } throws: { error in
            (error as? ArcGISError)?.code == 503
        }
    }
}
