import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import OutpostGeoPackage
import OutpostGeocoding
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// A locator taken offline (docs/geocoding.md, "Offline"): the file each backend writes holds
/// every entry and answers as the store does, and `exportLocator` serves it.
@Suite struct LocatorExportTests {
    static let queries = [
        "3 Hill Street, Springfield", "3 Hil Stret, Springfeld", "3 Hil Street, Springfield", "2 Hil Street, Shelbyville", "5 Station Rd",
        "1 Hill Street", "Church", "Shelbyville", "90210", "zzqx",
    ]

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func theFileHoldsEveryEntryAndAnswersAsTheStore(_ backend: String) throws {
        let store = try LocatorStoreTests.newStore(backend)
        try Self.check(store)
    }

    static func check(_ store: some OutpostBackend) throws {
        let locator = try AddressTown.makeLocator(store)
        let path = "\(TestFolders.make("locator-export"))/town.locator"
        #expect(try LocatorAnswers(store: store.locators).writeFile(named: locator.name, to: path) == locator)
        let file = try LocatorFile(path: path)
        #expect(file.name == "TownAddresses" && file.entryCount == locator.entryCount && file.builtAt == locator.builtAt)
        var rows = 0
        try store.locators.forEachEntryRow(locator: "townaddresses") { _ in rows += 1 }
        #expect(rows == locator.entryCount && rows == 31)
        let served = LocatorSearch(index: StoreLocatorIndex(store: store.locators, locator: locator))
        let offline = LocatorSearch(index: file)
        for text in queries {
            let a = try served.findCandidates(served.parse(singleLine: text, fields: nil), maxLocations: 50)
            let b = try offline.findCandidates(offline.parse(singleLine: text, fields: nil), maxLocations: 50)
            #expect(a == b, "\(text)")
            #expect(try served.suggest(text, maxSuggestions: 15) == offline.suggest(text, maxSuggestions: 15), "\(text)")
        }
        #expect(throws: StoreError.self) { try store.locators.forEachEntryRow(locator: "Nope") { _ in } }
    }

    /// `LocatorTables.schema` repeats migration `v22-locators` (a migration never changes): the
    /// store's tables are the file's, so both gather with the same SQL.
    @Test func theStoresLocatorTablesAreALocatorFiles() throws {
        let folder = TestFolders.make("locator-schema")
        _ = try SpatiaLiteBackend(dataDirectory: folder)
        func objects(_ queue: DatabaseQueue) throws -> [String: String?] {
            try queue.read { db in
                Dictionary(
                    uniqueKeysWithValues: try Row.fetchAll(
                        db, sql: "SELECT type || ' ' || name, sql FROM sqlite_master WHERE name LIKE 'outpost_locator%'"
                    ).map { ($0[0] as String, $0[1] as String?) })
            }
        }
        let made = try DatabaseQueue()
        try made.write { db in try db.execute(sql: LocatorTables.schema) }
        let expected = try objects(made)
        #expect(expected.count >= 10)
        #expect(try objects(DatabaseQueue(path: "\(folder)/outpost.sqlite")) == expected)
    }

    @Test func exportLocatorServesTheFileWithItsBuildAsETag() async throws {
        try await withFreshDemoApp { client, store in
            let locator = try AddressTown.makeLocator(store)
            let tag = "\"\(locator.builtAt)-\(locator.generation ?? 0)-31\""
            try await client.execute(uri: "/arcgis/rest/services/TownAddresses/GeocodeServer/exportLocator", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] == tag)
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"TownAddresses.locator\"")
                let path = "\(TestFolders.make("locator-download"))/got.locator"
                try Data(buffer: response.body).write(to: URL(fileURLWithPath: path))
                #expect(try LocatorFile(path: path).entryCount == 31)
            }
            try await client.execute(uri: "/arcgis/rest/services/Nope/GeocodeServer/exportLocator?f=json", method: .get) { response in
                #expect(String(buffer: response.body).contains("\"code\":404"))
            }

            // A device holding the file asks again with its tag: 304 and no body, until a
            // refresh brings new entries and a new tag.
            let uri = "/arcgis/rest/services/TownAddresses/GeocodeServer/exportLocator"
            for header in [tag, "\"other\", W/\(tag)", "*"] {
                try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: header]) { response in
                    #expect(response.status == .notModified && response.body.readableBytes == 0 && response.headers[.eTag] == tag, "\(header)")
                }
            }
            let point = AddressTown.location(street: 0, number: 11)
            let add = EditFeature(
                attributes: ["NUM": "11", "STREET": "Hill Street", "TOWN": "Springfield", "POSTCODE": "90210"],
                geometry: ["x": .double(point.x), "y": .double(point.y), "spatialReference": ["wkid": 4326]])
            _ = try store.edits.applyEdits(service: "Town", edits: [LayerEdits(layerId: 0, adds: [add])], options: EditOptions())
            #expect(try LocatorRefresh.refresh(named: "TownAddresses", in: store) == .updated(upserted: 1, deleted: 0))
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(response.status == .ok && response.headers[.eTag] != tag)
                let path = "\(TestFolders.make("locator-download"))/again.locator"
                try Data(buffer: response.body).write(to: URL(fileURLWithPath: path))
                #expect(try LocatorFile(path: path).entryCount == 32)
            }
            // Nothing is left in the store's scratch folder.
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.temporaryDirectory).filter { $0.hasSuffix(".locator") } == [])
        }
    }
}
