import Foundation
import OutpostClient
import OutpostGeocoding
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Synchronization
import Testing

/// An offline map that carries the organisation's locators and route service
/// (docs/offline-map-format.md, "Tasks"): the device geocodes and routes with the network cut,
/// answering as the services did.
@Suite struct OfflineMapTasksTests {
    static let portal = URL(string: "http://127.0.0.1:8080/arcgis")!
    static let helpers = PortalHelperServices(
        portalSelf: [
            "helperServices": [
                "geocode": [
                    ["url": "http://127.0.0.1:8080/arcgis/rest/services/Town/GeocodeServer"],
                    ["url": "https://geocode.example.com/arcgis/rest/services/World/GeocodeServer"],
                    ["url": "http://127.0.0.1:8080/arcgis/rest/services/Town/FeatureServer"],
                ],
                "route": ["url": "http://127.0.0.1:8080/arcgis/rest/services/Streets/NAServer/Route"],
            ]
        ])

    static func webMap(search: Bool?, placeFinder: Bool = true, routing: Bool?) -> JSONValue {
        var viewing = JSONObject()
        if let search { viewing["search"] = ["enabled": .bool(search), "disablePlaceFinder": .bool(!placeFinder)] }
        if let routing { viewing["routing"] = ["enabled": .bool(routing)] }
        return ["operationalLayers": [], "applicationProperties": ["viewing": .object(viewing)]]
    }

    /// Which utility services a web map asks for: a normative table (docs/offline-map-format.md).
    @Test(
        arguments: [
            (true, true, true, 1, 1), (true, false, false, 0, 0), (nil, true, nil, 0, 0), (true, false, true, 0, 1), (false, true, true, 0, 1),
            (true, true, false, 1, 0),
        ] as [(Bool?, Bool, Bool?, Int, Int)])
    func theWebMapsViewingSettingsChooseTheServicesOfThePortalsOwnServer(
        _ search: Bool?, _ placeFinder: Bool, _ routing: Bool?, _ locators: Int, _ networks: Int
    ) {
        #expect(Self.helpers.locators.count == 2, "the FeatureServer is not a locator")
        #expect(Self.helpers.network == "http://127.0.0.1:8080/arcgis/rest/services/Streets/NAServer")
        let asked = Self.helpers.asked(by: Self.webMap(search: search, placeFinder: placeFinder, routing: routing), portal: Self.portal)
        #expect(asked.locators.count == locators && asked.networks.count == networks)
        #expect(!asked.locators.contains { $0.contains("example.com") }, "another server's locator stays online")
    }

    @Test func theDeviceGeocodesAndRoutesWithTheNetworkCut() async throws {
        let device = TestFolders.make("offline-tasks")
        let folder = URL(fileURLWithPath: "\(device)/town")
        let addresses = ["3 Hill Street, Springfield", "5 Station Rd", "3 Hil Stret, Springfeld"]
        let route = RouteParameters(stops: [RouteTaskTests.place("Here", 0, 0), RouteTaskTests.place("There", 3, 2)])
        let online = Mutex<(geocoded: [[GeocodeResult]], route: RouteResult?)>(([], nil))
        try await withLiveServer { serviceURL, store, _ in
            try AddressTown.makeLocator(store)
            try StreetGrid.make(store)
            let portal = OfflineMapTaskTests.portal(serviceURL)
            let services = portal.appendingPathComponent("rest/services")
            let map =
                #"{"operationalLayers":[{"id":"addresses","url":"/arcgis/rest/services/Town/FeatureServer/0"}],"baseMap":{"baseMapLayers":[]},"#
                + #""applicationProperties":{"viewing":{"search":{"enabled":true},"routing":{"enabled":true}}}}"#
            let item = PortalItem(
                id: "0000000000000000000000000000ab31", owner: "outpost", title: "Town", type: "Web Map", access: .public, created: 1)
            try store.portal.addItem(item, data: .text(map))
            let task = OfflineMapTask(portal: portal, webMapItemId: item.id)
            var parameters = try await task.makeDefaultGenerateOfflineMapParameters(areaOfInterest: OfflineMapAttachmentTests.world)
            parameters.includeBasemap = false
            let plan = try await task.offlineMapCapabilities(parameters: parameters)
            #expect(
                plan.locators.map { $0.components(separatedBy: "/services/").last } == ["DemoPlaces/GeocodeServer", "TownAddresses/GeocodeServer"])
            #expect(plan.networks.map { $0.components(separatedBy: "/services/").last } == ["StreetRoutes/NAServer"])
            let job = try await task.makeGenerateOfflineMapJob(parameters: parameters, downloadDirectory: folder)
            job.pollInterval = .milliseconds(20)
            job.start()
            #expect(try await !job.output.hasErrors)

            let locator = LocatorTask(url: services.appendingPathComponent("TownAddresses/GeocodeServer"))
            var geocoded: [[GeocodeResult]] = []
            for address in addresses { geocoded.append(try await locator.geocode(searchText: address)) }
            let solved = try await RouteTask(url: services.appendingPathComponent("StreetRoutes/NAServer")).solveRoute(route)
            online.withLock { $0 = (geocoded, solved) }
        }
        // The server is gone: the folder's tasks answer alone.
        let tasks = try OfflineMapTasks(offlineMapDirectory: folder)
        #expect(tasks.locatorTasks.keys.sorted() == ["DemoPlaces", "TownAddresses"] && tasks.routeTasks.keys.sorted() == ["StreetRoutes"])
        let served = online.withLock { $0 }
        let town = try #require(tasks.locatorTasks["TownAddresses"])
        for (address, expected) in zip(addresses, served.geocoded) {
            #expect(try await town.geocode(searchText: address) == expected, "\(address)")
        }
        #expect(served.geocoded[0].first?.score == 100)
        #expect(try await tasks.locatorTasks["DemoPlaces"]?.geocode(searchText: "Berlin").first?.label == "Berlin")
        let solved = try await #require(tasks.routeTasks["StreetRoutes"]).solveRoute(route)
        #expect(solved.stopOrder == served.route?.stopOrder && abs(solved.totalMetres - (served.route?.totalMetres ?? 0)) < 1e-6)
        #expect(solved.directions.map(\.text) == served.route?.directions.map(\.text))
        let manifest = try JSONParser.parse(String(decoding: try Data(contentsOf: folder.appendingPathComponent("package.json")), as: UTF8.self))
        let kinds = (manifest["files"]?.arrayValue ?? []).compactMap { $0["kind"]?.stringValue }.sorted()
        #expect(kinds == ["geodatabase", "locator", "locator", "network"], "\(kinds)")
    }

    /// A locator that cannot be taken (gone between the plan and the download) is the job's
    /// error, named in `package.json`; the others are carried.
    @Test func aTaskThatCannotBeTakenIsReported() async throws {
        try await withLiveServer { serviceURL, store, device in
            try AddressTown.makeLocator(store)
            let map =
                #"{"operationalLayers":[{"id":"addresses","url":"/arcgis/rest/services/Town/FeatureServer/0"}],"baseMap":{"baseMapLayers":[]},"#
                + #""applicationProperties":{"viewing":{"search":{"enabled":true}}}}"#
            let item = PortalItem(
                id: "0000000000000000000000000000ab32", owner: "outpost", title: "Town", type: "Web Map", access: .public, created: 1)
            try store.portal.addItem(item, data: .text(map))
            let task = OfflineMapTask(portal: OfflineMapTaskTests.portal(serviceURL), webMapItemId: item.id)
            var parameters = try await task.makeDefaultGenerateOfflineMapParameters(areaOfInterest: OfflineMapAttachmentTests.world)
            parameters.includeBasemap = false
            let folder = URL(fileURLWithPath: "\(device)/gone")
            let job = try await task.makeGenerateOfflineMapJob(parameters: parameters, downloadDirectory: folder)
            try store.locators.deleteLocator(named: "TownAddresses")
            job.pollInterval = .milliseconds(20)
            job.start()
            let result = try await job.output
            #expect(result.hasErrors && result.layerErrors.isEmpty)
            #expect(result.taskErrors.keys.map { $0.hasSuffix("/TownAddresses/GeocodeServer") } == [true], "\(result.taskErrors)")
            let tasks = try OfflineMapTasks(offlineMapDirectory: folder)
            #expect(tasks.locatorTasks.keys.sorted() == ["DemoPlaces"])
            let manifest = try JSONParser.parse(String(decoding: try Data(contentsOf: folder.appendingPathComponent("package.json")), as: UTF8.self))
            #expect(manifest["errors"]?[0]?["serviceUrl"]?.stringValue?.hasSuffix("/TownAddresses/GeocodeServer") == true)
        }
    }

    @Test func aManifestNamingAFileOutsideTheFoldersTasksIsRefused() throws {
        let folder = TestFolders.make("offline-tasks-escape")
        for file in ["../elsewhere.locator", "tasks/../../x.locator", "/etc/passwd", "tasks/.locator", "data/Town.gpkg"] {
            let manifest: JSONValue = ["format": "outpost-offline-map", "version": 1, "files": [["kind": "locator", "file": .string(file)]]]
            try Data(manifest.jsonText.utf8).write(to: URL(fileURLWithPath: "\(folder)/package.json"))
            #expect(throws: ClientError.self, "\(file)") { try OfflineMapTasks(offlineMapDirectory: URL(fileURLWithPath: folder)) }
        }
        // Links and pipes are no task files, whatever they point at.
        try FileManager.default.createDirectory(atPath: "\(folder)/tasks", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/tasks/Link.locator", withDestinationPath: "/etc/passwd")
        mkfifo("\(folder)/tasks/Pipe.network", 0o600)
        for file in ["tasks/Link.locator", "tasks/Pipe.network"] {
            let kind = file.hasSuffix("locator") ? "locator" : "network"
            let manifest: JSONValue = ["format": "outpost-offline-map", "version": 1, "files": [["kind": .string(kind), "file": .string(file)]]]
            try Data(manifest.jsonText.utf8).write(to: URL(fileURLWithPath: "\(folder)/package.json"))
            #expect(throws: ClientError.self, "\(file)") { try OfflineMapTasks(offlineMapDirectory: URL(fileURLWithPath: folder)) }
        }
        let none: JSONValue = ["format": "outpost-offline-map", "version": 1, "files": [["kind": "geodatabase", "file": "data/Town.gpkg"]]]
        try Data(none.jsonText.utf8).write(to: URL(fileURLWithPath: "\(folder)/package.json"))
        let tasks = try OfflineMapTasks(offlineMapDirectory: URL(fileURLWithPath: folder))
        #expect(tasks.locatorTasks.isEmpty && tasks.routeTasks.isEmpty)
    }
}
