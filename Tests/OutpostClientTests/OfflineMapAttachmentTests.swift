import Foundation
import OutpostClient
import OutpostSpatiaLite
import OutpostStorage
import Testing

/// The four attachment workflows of feature-service-sync.md §4.5 through an offline map
/// (docs/client.md, "Offline maps"): what the geodatabase holds, and which way attachments
/// travel when the map syncs. And the rows a related table takes (`destinationTableRowFilter`).
@Suite struct OfflineMapAttachmentTests {
    struct Workflow: Sendable, CustomTestStringConvertible {
        var name: String
        var option: ReturnLayerAttachmentOption
        var direction: AttachmentsSyncDirection
        /// The server's attachments are in the geodatabase.
        var downloaded: Bool
        /// The device can add attachments, and they reach the server.
        var uploads: Bool
        /// An attachment added on the server later reaches the device.
        var downloadsLater: Bool
        var testDescription: String { name }
    }

    static let workflows = [
        Workflow(
            name: "taken and synced both ways", option: .allLayers, direction: .bidirectional, downloaded: true, uploads: true, downloadsLater: true),
        Workflow(name: "taken, then only sent", option: .editableLayers, direction: .upload, downloaded: true, uploads: true, downloadsLater: false),
        Workflow(name: "not taken, only sent", option: .readOnlyLayers, direction: .upload, downloaded: false, uploads: true, downloadsLater: false),
        Workflow(name: "neither taken nor synced", option: .none, direction: .none, downloaded: false, uploads: false, downloadsLater: false),
    ]

    static let world = Envelope(xmin: -180, ymin: -85, xmax: 180, ymax: 85)

    /// The demo map taken offline into `device/name` for the world, basemap left out, as `change` adjusts (shared by the offline map suites).
    static func takeOffline(
        _ serviceURL: URL, _ device: String, _ name: String, _ change: (inout GenerateOfflineMapParameters) -> Void
    ) async throws
        -> URL
    {
        let task = OfflineMapTask(portal: OfflineMapTaskTests.portal(serviceURL), webMapItemId: OfflineMapTaskTests.demoMap)
        var parameters = try await task.makeDefaultGenerateOfflineMapParameters(areaOfInterest: world)
        parameters.includeBasemap = false
        change(&parameters)
        let folder = URL(fileURLWithPath: "\(device)/\(name)")
        let job = try await task.makeGenerateOfflineMapJob(parameters: parameters, downloadDirectory: folder)
        job.pollInterval = .milliseconds(20)
        job.start()
        #expect(try await !job.output.hasErrors)
        return folder
    }

    /// The server's attachments of city `objectId`, by name.
    static func serverAttachments(_ service: ServiceConnection, city objectId: Int64) async throws -> [String] {
        let answer = try await service.getJSON(service.url("0/\(objectId)/attachments"))
        return (answer["attachmentInfos"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }.sorted()
    }

    @Test(arguments: workflows)
    func eachAttachmentWorkflowGivesItsFilesAndItsSync(_ workflow: Workflow) async throws {
        try await withLiveServer { serviceURL, store, device in
            let folder = try await Self.takeOffline(serviceURL, device, "attachments") {
                $0.returnLayerAttachmentOption = workflow.option
                $0.attachmentSyncDirection = workflow.direction
            }
            let service = ServiceConnection(serviceURL: serviceURL)
            let first = try await service.getJSON(service.url("0/query"), [("objectIds", "1,2"), ("outFields", "GlobalID")])
            let cityIds = (first["features"]?.arrayValue ?? []).compactMap { $0["attributes"]?["GlobalID"]?.stringValue }
            #expect(cityIds.count == 2)

            let geodatabase = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
            let cities = try geodatabase.featureTable(layerId: 0)
            #expect(cities.hasAttachments == (workflow.direction != .none), "an attachment table when attachments sync at all")
            let seeded = try geodatabase.attachments(of: cityIds[0], in: cities)
            #expect(seeded.map(\.name) == (workflow.downloaded ? ["note-1.txt"] : []))

            // On the device: a photo of city 2. On the server: a note on city 1.
            if workflow.uploads {
                try geodatabase.addAttachment(
                    to: cityIds[1], in: cities, name: "photo.jpg", contentType: "image/jpeg", data: Data([0xFF, 0xD8, 0xFF]))
            } else {
                #expect(throws: ClientError.self) {
                    try geodatabase.addAttachment(to: cityIds[1], in: cities, name: "photo.jpg", contentType: "image/jpeg", data: Data([1]))
                }
            }
            geodatabase.close()
            let note = "\(device)/later.txt"
            try Data("added on the server".utf8).write(to: URL(fileURLWithPath: note))
            _ = try store.edits.addAttachment(
                service: "Demo", layer: 0, parentObjectId: 1,
                input: AttachmentInput(name: "later.txt", contentType: "text/plain", sourcePath: note, size: 19),
                context: EditContext())

            let result = try await OfflineMapSyncTask(offlineMapDirectory: folder).sync(pollInterval: .milliseconds(20))
            #expect(!result.hasErrors, "\(result)")
            #expect(try await Self.serverAttachments(service, city: 2) == ["note-2.txt"] + (workflow.uploads ? ["photo.jpg"] : []))
            let synced = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
            defer { synced.close() }
            let names = try synced.attachments(of: cityIds[0], in: try synced.featureTable(layerId: 0)).map(\.name).sorted()
            let expected = (workflow.downloaded ? ["note-1.txt"] : []) + (workflow.downloadsLater ? ["later.txt"] : [])
            #expect(names == expected.sorted())
        }
    }

    @Test func aRelatedTableTakesOnlyTheRowsOfTheFeaturesTakenUnlessAllAreAsked() async throws {
        try await withLiveServer { serviceURL, store, device in
            let europe = OfflineMapTaskTests.europe
            let related = try await Self.takeOffline(serviceURL, device, "related-only") { $0.areaOfInterest = europe }
            let all = try await Self.takeOffline(serviceURL, device, "all-rows") {
                $0.areaOfInterest = europe
                $0.destinationTableRowFilter = .all
            }
            func rows(_ folder: URL) async throws -> (cities: Set<String>, inspections: [String]) {
                let geodatabase = try Geodatabase.open(folder.appendingPathComponent("data/Demo.gpkg"))
                defer { geodatabase.close() }
                let cities = try await geodatabase.featureTable(layerId: 0).queryFeatures().compactMap { $0["GlobalID"].stringValue }
                let inspections = try await geodatabase.featureTable(layerId: 3).queryFeatures().compactMap { $0["CityGlobalID"].stringValue }
                return (Set(cities), inspections)
            }
            let (cities, inspections) = try await rows(related)
            #expect(!cities.isEmpty && cities.count < 243, "Europe's cities only")
            #expect(!inspections.isEmpty && inspections.allSatisfy(cities.contains), "only inspections of the cities taken")
            let service = ServiceConnection(serviceURL: serviceURL)
            let count = try await service.getJSON(service.url("3/query"), [("where", "1=1"), ("returnCountOnly", "true")])
            #expect(try await rows(all).inspections.count == Int(count["count"]?.int64Value ?? -1), "every row with .all")
            _ = store
        }
    }
}
