import Foundation
import OutpostService
import OutpostStorage
import OutpostWire
import Testing

/// The `PortalStore` contract, for every backend.
@Suite struct PortalContractTests {
    static func item(_ title: String, owner: String = "ada", created: Int64 = 1) -> PortalItem {
        PortalItem(id: PortalNames.newId(), owner: owner, title: title, type: "Web Map", created: created, typeKeywords: ["Offline"], tags: ["a"])
    }

    @Test(arguments: ContractBackend.all) func itemsKeepTheirDescriptionAndData(_ contract: ContractBackend) throws {
        let (backend, _) = try contract.fresh()
        let portal = backend.portal
        var map = Self.item("Map")
        map.properties = ["k": 1]
        map.extent = [[1, 2], [3, 4]]
        try portal.addItem(map, data: .text("{\"operationalLayers\":[]}"))
        #expect(try portal.item(id: map.id) == map)
        #expect(try portal.data(of: map.id) == .text("{\"operationalLayers\":[]}"))
        #expect(throws: PortalFailure.self) { try portal.addItem(map, data: nil) }
        #expect(throws: PortalFailure.self) { try portal.addItem(PortalItem(id: "../x", owner: "a", title: "t", type: "t", created: 0), data: nil) }

        var changed = map
        changed.title = "Renamed"
        changed.access = .public
        try portal.updateItem(changed, data: nil)
        #expect(try portal.item(id: map.id)?.title == "Renamed")
        #expect(try portal.data(of: map.id) == .text("{\"operationalLayers\":[]}"), "data kept when not given")

        // A file is moved in whole and read back.
        let file = NSTemporaryDirectory() + "portal-contract-\(UUID().uuidString).gpkg"
        try Data("package bytes".utf8).write(to: URL(fileURLWithPath: file))
        let package = Self.item("Package")
        try portal.addItem(package, data: .file(name: "north.gpkg", path: file))
        guard case .file(let name, let path) = try portal.data(of: package.id) else {
            Issue.record("no file")
            return
        }
        #expect(try name == "north.gpkg" && String(contentsOfFile: path, encoding: .utf8) == "package bytes")
        #expect(!FileManager.default.fileExists(atPath: file), "moved, not copied")
        #expect(try portal.items().map(\.title).sorted() == ["Package", "Renamed"])
    }

    @Test(arguments: ContractBackend.all) func deletingAnItemTakesItsRelationshipsResourcesAndData(_ contract: ContractBackend) throws {
        let (backend, _) = try contract.fresh()
        let portal = backend.portal
        let map = Self.item("Map")
        let area = Self.item("Area")
        try portal.addItem(map, data: .text("{}"))
        try portal.addItem(area, data: nil)
        let link = ItemRelationship(origin: map.id, destination: area.id, type: "Map2Area")
        try portal.addRelationship(link)
        try portal.addRelationship(link)
        #expect(try portal.relationships(of: area.id) == [link], "stored once")
        let resource = try portal.addResource(item: map.id, name: "updates/d_1.gpkg", data: .bytes(Array("delta".utf8)))
        #expect(resource.size == 5 && FileManager.default.fileExists(atPath: resource.path))
        #expect(throws: PortalFailure.self) { try portal.addResource(item: map.id, name: "../escape", data: .bytes([1])) }
        #expect(throws: PortalFailure.self) { try portal.addResource(item: PortalNames.newId(), name: "x", data: .bytes([1])) }

        try portal.deleteItem(id: map.id)
        #expect(try portal.item(id: map.id) == nil)
        #expect(try portal.relationships(of: area.id).isEmpty)
        #expect(try portal.resources(of: map.id).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: resource.path))
        #expect(throws: PortalFailure.self) { try portal.data(of: map.id) }
        #expect(throws: PortalFailure.self) { try portal.deleteItem(id: map.id) }
    }

    @Test(arguments: ContractBackend.all) func anItemHasOneThumbnailReplacedWholeAndDeletedWithIt(_ contract: ContractBackend) throws {
        let (backend, _) = try contract.fresh()
        let portal = backend.portal
        let map = Self.item("Map")
        try portal.addItem(map, data: .text("{}"))
        #expect(try portal.thumbnailPath(item: map.id) == nil)
        let first = try portal.setThumbnail(item: map.id, name: "first.png", data: .bytes([0x89, 0x50]))
        #expect(first.thumbnail == "thumbnail/first.png")
        #expect(try portal.item(id: map.id)?.thumbnail == "thumbnail/first.png")
        let firstPath = try #require(try portal.thumbnailPath(item: map.id))
        #expect(FileManager.default.contents(atPath: firstPath) == Data([0x89, 0x50]))
        _ = try portal.setThumbnail(item: map.id, name: "second.jpg", data: .bytes([0xFF, 0xD8]))
        let secondPath = try #require(try portal.thumbnailPath(item: map.id))
        #expect(!FileManager.default.fileExists(atPath: firstPath), "the one before is gone")
        #expect(throws: PortalFailure.self) { try portal.setThumbnail(item: map.id, name: "../x.png", data: .bytes([1])) }
        #expect(throws: PortalFailure.self) { try portal.setThumbnail(item: PortalNames.newId(), name: "x.png", data: .bytes([1])) }
        var renamed = try #require(try portal.item(id: map.id))
        renamed.title = "Renamed"
        try portal.updateItem(renamed, data: nil)
        #expect(try portal.item(id: map.id)?.thumbnail == "thumbnail/second.jpg", "an update keeps it")
        try portal.deleteItem(id: map.id)
        #expect(!FileManager.default.fileExists(atPath: secondPath))
    }

    @Test(arguments: ContractBackend.all) func foldersAreOneTitlePerOwner(_ contract: ContractBackend) throws {
        let (backend, _) = try contract.fresh()
        let field = try backend.portal.createFolder(owner: "ada", title: "Field")
        #expect(throws: PortalFailure.self) { try backend.portal.createFolder(owner: "ADA", title: "field") }
        _ = try backend.portal.createFolder(owner: "bob", title: "Field")
        #expect(try backend.portal.folders(owner: "ada") == [field])
        #expect(PortalNames.isValidId(field.id))
    }

    @Test(arguments: ContractBackend.all) func theWebMapUseCaseRefusesWhatIsNotAWebMap(_ contract: ContractBackend) throws {
        let (backend, _) = try contract.fresh()
        try checkWebMaps(backend)
    }

    private func checkWebMaps<Backend: OutpostBackend>(_ backend: Backend) throws {
        let content = PortalContent(backend: backend)
        let added = try content.addWebMap(#"{"operationalLayers":[]}"#, title: "Map", owner: "ada", offline: true, caller: .unrestricted)
        #expect(added.typeKeywords.contains("Offline") && added.type == "Web Map")
        for text in ["[]", "{}", "not json", #"{"operationalLayers":{}}"#] {
            #expect(throws: PortalFailure.self) { try content.addWebMap(text, title: "x", owner: "ada", offline: false, caller: .unrestricted) }
        }
        #expect(throws: ArcGISError.self) {
            try content.addWebMap("{\"baseMap\":{}}", title: "x", owner: "ada", offline: false, caller: .user(ServerUser(name: "v", role: .viewer)))
        }
        #expect(try backend.portal.items().count == 1)
    }
}
