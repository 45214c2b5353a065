import OutpostDataTools
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import Testing

/// The demo is seeded into a new store once (`DemoData.seedIfNew`, `StoreFlag.demoSeeded`):
/// an organisation that deleted its services does not get the demo back at its next start.
@Suite struct DemoSeedOnceTests {
    static func newStore(_ backend: String) throws -> any OutpostBackend {
        backend == "SpatiaLite" ? try SpatiaLiteBackend(dataDirectory: TestFolders.make("seed-once")) : try TestPostgres.makeBackend()
    }

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func theDemoIsSeededIntoANewStoreOnlyAndNotAgainOnceDeleted(_ backend: String) throws {
        let store = try Self.newStore(backend)
        #expect(try !store.maintenance.isSet(.demoSeeded))
        #expect(try !DemoData.seedIfNew(store, seeding: false, testdataDirectory: TestFolders.testdata), "--no-demo on a new store")
        #expect(try !store.maintenance.isSet(.demoSeeded), "still new: a later start with the demo seeds it")
        #expect(try DemoData.seedIfNew(store, testdataDirectory: TestFolders.testdata))
        #expect(try store.maintenance.isSet(.demoSeeded))
        #expect(try !DemoData.seedIfNew(store, testdataDirectory: TestFolders.testdata))
        for name in DemoData.serviceNames { try store.schema.deleteService(named: name) }
        #expect(try store.catalog().services.isEmpty)
        #expect(try !DemoData.seedIfNew(store, testdataDirectory: TestFolders.testdata), "deleted services stay deleted")
        #expect(try store.catalog().services.isEmpty)
        try store.maintenance.set(.demoSeeded)  // setting it again is no error
    }

    /// A store first started without the demo and filled by an import is the organisation's:
    /// marked at its start, so deleting everything later does not seed the demo either.
    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func aStoreWithItsOwnServicesIsNeverSeeded(_ backend: String) throws {
        let store = try Self.newStore(backend)
        try store.schema.createService(pointLayerService(name: "Wells"))
        #expect(try !DemoData.seedIfNew(store, seeding: false, testdataDirectory: TestFolders.testdata))
        #expect(try store.maintenance.isSet(.demoSeeded))
        try store.schema.deleteService(named: "Wells")
        #expect(try !DemoData.seedIfNew(store, testdataDirectory: TestFolders.testdata))
        #expect(try store.catalog().services.isEmpty)
    }
}
