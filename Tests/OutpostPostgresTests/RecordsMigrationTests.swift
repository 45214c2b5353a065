import Foundation
import GRDB
import OutpostMigration
import OutpostPostgres
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// `outpost migrate-to-postgres` moves the server's records too (docs/postgres.md, "Moving a
/// data folder"): users sign in with their passwords and tokens already issued, and the
/// portal's items, tile sets and upload items are found with their files, read in place from
/// the same data folder.
@Suite(.serialized) struct RecordsMigrationTests {
    /// Locators and networks are built anew over the moved layers: the same answers, the
    /// database's own generations.
    @Test func locatorsAndNetworksAreBuiltAnewOverTheMovedLayers() throws {
        let store = try makeTemporaryStore()
        let locator = try AddressTown.makeLocator(store)
        let network = try StreetGrid.make(store)
        let backend = try PostgresBackend(try TestPostgres.makeDatabase(), dataDirectory: store.directory, maximumConnections: 4)
        defer { backend.close() }
        let report = try SpatiaLiteToPostgres.migrate(store, to: backend)
        #expect(report.locators == 1 && report.networks == 1, "\(report)")
        let moved = try #require(try backend.locators.locator(named: "TownAddresses"))
        #expect(moved.definition == locator.definition && moved.entryCount == locator.entryCount && moved.generation != nil)
        let movedNetwork = try #require(try backend.networks.network(named: network.name))
        #expect(movedNetwork.definition == network.definition && movedNetwork.edgeCount == network.edgeCount)
        func ask(_ store: some LocatorStore) throws -> JSONValue? {
            let answers = LocatorAnswers(store: store)
            return try answers.findAddressCandidates(
                try answers.locator(named: "TownAddresses"), RequestParameters([("SingleLine", "7 Hill Street, Springfield")])
            )["candidates"]
        }
        let there = try ask(backend.locators)
        let here = try ask(store.locators)
        #expect(there == here && there?.arrayValue?.isEmpty == false)
    }

    @Test func usersThePortalTileSetsAndUploadsMoveAndTheirFilesAreReadInPlace() throws {
        let store = try makeTemporaryStore()
        try store.schema.createService(pointLayerService(name: "Points"))
        try store.users.addUser("ada", role: .editor, password: "ada-password-1", rounds: 1000)
        let token = try store.users.issueToken(for: ServerUser(name: "ada", role: .editor), minutes: 60).token
        let package = NSTemporaryDirectory() + "migrate-\(UUID().uuidString).gpkg"
        try Data("package bytes".utf8).write(to: URL(fileURLWithPath: package))
        let item = PortalItem(id: PortalNames.newId(), owner: "ada", title: "Package", type: "GeoPackage", created: 1)
        try store.portal.addItem(item, data: .file(name: "north.gpkg", path: package))
        try store.portal.addRelationship(ItemRelationship(origin: item.id, destination: item.id, type: "Area2Package"))
        _ = try store.portal.createFolder(owner: "ada", title: "Field")
        _ = try store.tiles.addTileSet(mbtiles: TestFolders.testdata + "/demo-raster.mbtiles", name: "Basemap", description: nil)
        let spooled = NSTemporaryDirectory() + "migrate-upload-\(UUID().uuidString)"
        try Data("upload bytes".utf8).write(to: URL(fileURLWithPath: spooled))
        let upload = try store.uploads.createUpload(
            service: "Points", name: "photo.jpg", description: "", sourcePath: spooled, size: 12, owner: "ada")

        let backend = try PostgresBackend(try TestPostgres.makeDatabase(), dataDirectory: store.directory, maximumConnections: 4)
        defer { backend.close() }
        let report = try SpatiaLiteToPostgres.migrate(store, to: backend)
        #expect(report.records["users"] == 1 && report.records["tokens"] == 1 && report.records["portal items"] == 1, "\(report.records)")
        #expect(report.records["tile sets"] == 1 && report.records["upload items"] == 1 && report.records["folders"] == 1)
        #expect(report.versions == 0, "\(report)")

        #expect(try backend.users.verify(user: "ada", password: "ada-password-1")?.role == .editor)
        guard case .valid(let user) = try backend.users.check(token: token) else {
            Issue.record("the token issued before the move is refused")
            return
        }
        #expect(user.name == "ada")
        #expect(try backend.portal.item(id: item.id) == item)
        guard case .file(let name, let path) = try backend.portal.data(of: item.id) else {
            Issue.record("no item file")
            return
        }
        #expect(name == "north.gpkg" && FileManager.default.contents(atPath: path) == Data("package bytes".utf8))
        #expect(try backend.portal.relationships(of: item.id).count == 1)
        #expect(try backend.portal.folders(owner: "ada").map(\.title) == ["Field"])
        #expect(try backend.tiles.tile(set: "Basemap", level: 1, row: 0, column: 0) == store.tiles.tile(set: "Basemap", level: 1, row: 0, column: 0))
        let moved = try backend.uploads.upload(service: "Points", itemID: upload.itemID)
        #expect(
            try moved == upload
                && FileManager.default.contents(atPath: try backend.uploads.uploadDataFile(upload.itemID)) == Data("upload bytes".utf8))
    }
}
