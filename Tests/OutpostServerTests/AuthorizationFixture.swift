import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostDataTools
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// What the matrix's owner (`eve`) holds, made once per backend: items private and shared with
/// the organisation (the demo map is the public one, the server's), a folder, web maps, a
/// replica with its async job and result file, an upload, versions of each access, export
/// jobs with their output, a packaging job; and a city with an attachment.
struct AuthorizationObjects: Sendable {
    var items: [String: String] = ["public": DemoData.demoMapId]
    var webMaps: [String: String] = ["public": DemoData.demoMapId]
    var folderId = ""
    let folderTitle = "Field"
    var replica = ""
    var replicaGeneration: Int64 = 0
    var replicaJob = ""
    var resultFile = ""
    var upload = ""
    var versions: [String: String] = [:]
    var exportJob = ""
    var vectorJob = ""
    var estimateJob = ""
    var exportFile = ""
    var areaJob = ""
    var area = ""
    var city: Int64 = 0
    var attachment: Int64 = 0
}

extension AuthorizationSession {
    static let owner = "eve"

    /// The subject of an item or version of the owner's with `access` (the public item is the
    /// server's); `inKeyScope`: the keys name it (`grantKeys`).
    static func subject(_ access: String, ofServer: Bool = false, inKeyScope: Bool = false) -> AuthorizationTable.Subject {
        AuthorizationTable.Subject(owner: ofServer ? "outpost" : owner, access: access, inKeyScope: inKeyScope)
    }

    static let owned = AuthorizationTable.Subject(owner: owner)

    mutating func makeObjects() async throws {
        // A folder of services, for `rest/services/:service` and the folder prefix.
        _ = try store.schema.createService(pointLayerService(name: "Field/Points"))
        // A route network, for `NAServer`.
        try StreetGrid.make(store)
        // Style resources for the vector tile service's sprite and font routes.
        let resources = TestFolders.make("styles")
        for (path, text) in [("sprites/sprite.json", "{}"), ("fonts/Noto Sans Regular/0-255.pbf", "glyphs")] {
            let file = (resources as NSString).appendingPathComponent(path)
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        }
        try store.tiles.addStyleResources(set: "DemoVectorBasemap", from: resources)
        // Items, each with a resource and a thumbnail; web maps of the owner's for map areas.
        objects.folderId = try store.portal.createFolder(owner: Self.owner, title: objects.folderTitle).id
        _ = try store.portal.addResource(item: DemoData.demoMapId, name: "notes/a.txt", data: .bytes(Array("a".utf8)))
        for access in ["private", "org"] {
            objects.items[access] = try freshItem(access: access)
            objects.webMaps[access] = try freshWebMap(access: access)
        }
        let cities = try await made(
            .get("\(Self.service)/0/queryAttachments?where=1%3D1&f=json"), as: .admin)
        let group = try #require(cities["attachmentGroups"]?[0], "a city with an attachment: \(cities)")
        objects.city = try #require(group["parentObjectId"]?.int64Value)
        objects.attachment = try #require(group["attachmentInfos"]?[0]?["id"]?.int64Value)

        let replica = try await made(createReplica())
        objects.replica = try #require(replica["replicaID"]?.stringValue)
        objects.replicaGeneration = try #require(replica["layerServerGens"]?[0]?["serverGen"]?.int64Value)
        let submitted = try await made(createReplica([("async", "true"), ("dataFormat", "json")]))
        let statusURL = path(of: submitted["statusUrl"]?.stringValue ?? "")
        let status = try await finished(statusURL)
        objects.replicaJob = String(statusURL.split(separator: "/").last ?? "")
        let resultURL = status["resultUrl"]?.stringValue ?? ""
        objects.resultFile = String(resultURL.split(separator: "/").last ?? "")
        #expect(!objects.replicaJob.isEmpty && !resultURL.isEmpty, "\(status)")
        objects.upload = try await freshUpload(parts: true)
        for access in ["private", "protected", "public"] { objects.versions[access] = try await freshVersion(access: access) }

        objects.exportJob = try await exportJob("DemoBasemap/MapServer", "exportTiles", jobs: "exportTiles/jobs")
        objects.vectorJob = try await exportJob("DemoVectorBasemap/VectorTileServer", "exportTiles", jobs: "jobs")
        objects.estimateJob = try await exportJob("DemoBasemap/MapServer", "estimateExportTilesSize", jobs: "estimateExportTilesSize/jobs")
        let folder = try await made(.get("/arcgis/rest/directories/arcgisoutput/\(objects.exportJob)?f=json"))
        objects.exportFile = try #require(folder["files"]?[0]?["name"]?.stringValue, "\(folder)")
        let area = try await packagingJob("CreateMapArea", as: .owner, areaFields(objects.webMaps["org"]!, xmin: 13))
        #expect(area.status == "esriJobSucceeded", "\(area.json)")
        objects.areaJob = area.job
        objects.area = try #require(area.json.stringValue, "\(area.json)")
        try grantKeys()
    }

    /// An exportTiles (or estimate) of level 0 by the owner, ended; its job id.
    func exportJob(_ service: String, _ operation: String, jobs: String) async throws -> String {
        let base = "/arcgis/rest/services/\(service)"
        let submitted = try await made(Probe(path: "\(base)/\(operation)", fields: [("f", "json"), ("levels", "0")]))
        let job = try #require(submitted["jobId"]?.stringValue)
        let status = try await finished("\(base)/\(jobs)/\(job)")
        #expect(status["jobStatus"] == "esriJobSucceeded", "\(status)")
        return job
    }

    /// Submits an OfflinePackaging task as `who` and waits for its job.
    func packagingJob(_ task: String, as who: Who, _ fields: [(String, String)]) async throws -> (job: String, status: String, json: JSONValue) {
        let submitted = try await made(Probe(path: "\(Self.gp)/\(task)/submitJob", fields: [("f", "json")] + fields), as: who)
        let job = try #require(submitted["jobId"]?.stringValue)
        let status = try await finished("\(Self.gp)/\(task)/jobs/\(job)", as: who)
        guard status["jobStatus"] == "esriJobSucceeded", let name = OfflinePackagingTasks.outputName(of: task) else {
            return (job, status["jobStatus"]?.stringValue ?? "", status)
        }
        let result = try await made(.get("\(Self.gp)/\(task)/jobs/\(job)/results/\(name)?f=json"), as: who)
        return (job, "esriJobSucceeded", result["value"] ?? .null)
    }

    /// CreateMapArea's fields for a small envelope of `map` (one degree, east of `xmin`).
    func areaFields(_ map: String, xmin: Int) -> [(String, String)] {
        let envelope = #"{"xmin":\#(xmin),"ymin":52,"xmax":\#(xmin + 1),"ymax":53,"spatialReference":{"wkid":4326}}"#
        return [("mapItemId", map), ("areaType", "ENVELOPE"), ("area", envelope), ("outputName", #"{"title":"\#(unique("area"))"}"#)]
    }

    /// A tree replica of the owner's (embedded JSON unless `extra` says otherwise).
    func createReplica(_ extra: [(String, String)] = []) -> Probe {
        Probe(
            path: "\(Self.service)/createReplica",
            fields: [
                ("f", "json"), ("replicaName", unique("authz")), ("layers", "2"), ("geometry", corner), ("geometryType", "esriGeometryEnvelope"),
                ("inSR", "4326"), ("transportType", "esriTransportTypeEmbedded"), ("syncModel", "perLayer"),
            ] + extra)
    }

    // MARK: Fresh objects, for requests that use theirs up

    /// An item of the owner's, with a text, a resource and a thumbnail.
    func freshItem(access: String, type: String = "Web Mapping Application", data: String = #"{"a":1}"#) throws -> String {
        let item = PortalItem(
            id: PortalNames.newId(), owner: Self.owner, title: unique("item"), type: type, access: ItemAccess(rawValue: access) ?? .private,
            created: store.clock.milliseconds(), typeKeywords: type == "Web Map" ? ["Offline"] : [], extent: [[13, 52], [14, 53]],
            spatialReference: "4326")
        try store.portal.addItem(item, data: .text(data))
        _ = try store.portal.addResource(item: item.id, name: "notes/a.txt", data: .bytes(Array("a".utf8)))
        _ = try store.portal.setThumbnail(item: item.id, name: "thumb.png", data: .bytes([0x89, 0x50, 0x4E, 0x47]))
        return item.id
    }

    /// A web map of the owner's, enabled for offline use, of the demo's cities only.
    func freshWebMap(access: String) throws -> String {
        guard case .text(let text) = try store.portal.data(of: DemoData.demoMapId), case .object(var map) = try JSONParser.parse(text) else {
            throw ArcGISError.internalError("the demo map has no data")
        }
        map["operationalLayers"] = [
            ["id": "cities", "title": "Cities", "url": "/arcgis/rest/services/Demo/FeatureServer/0", "layerType": "ArcGISFeatureLayer"]
        ]
        map["tables"] = []
        map["baseMap"] = ["baseMapLayers": [], "title": "None"]
        return try freshItem(access: access, type: "Web Map", data: JSONValue.object(map).jsonText)
    }

    func freshReplica() async throws -> String {
        let created = try await made(createReplica())
        return try #require(created["replicaID"]?.stringValue)
    }

    /// A registered upload of the owner's, with one part if `parts`.
    func freshUpload(parts: Bool = false) async throws -> String {
        let registered = try await made(
            Probe(path: "\(Self.service)/uploads/register", fields: [("f", "json"), ("itemName", unique("upload") + ".json")]))
        let id = try #require(registered["item"]?["itemID"]?.stringValue)
        if parts {
            _ = try await made(
                Probe(
                    path: "\(Self.service)/uploads/\(id)/uploadPart", fields: [("f", "json"), ("partId", "1")],
                    file: ("file", "part1", "application/octet-stream", Array("[]".utf8))))
        }
        return id
    }

    /// A version of the owner's on Parcels; its name.
    func freshVersion(access: String) async throws -> String {
        let created = try await made(
            Probe(
                path: "\(Self.parcels)/create", fields: [("f", "json"), ("versionName", unique("v\(access)")), ("accessPermission", access)]))
        return try #require(created["versionInfo"]?["versionName"]?.stringValue)
    }

    /// A tree (layer 2) or a city (layer 0) added by the admin; its OBJECTID.
    func freshFeature(layer: Int = 2) async throws -> Int64 {
        let feature = layer == 2 ? tree("{\(UUID().uuidString)}", height: 3) : #"{"attributes":{"name":"Fresh"},"geometry":{"x":13.4,"y":52.5}}"#
        let added = try await made(
            Probe(path: "\(Self.service)/\(layer)/addFeatures", fields: [("f", "json"), ("features", "[\(feature)]")]), as: .admin)
        return try #require(added["addResults"]?[0]?["objectId"]?.int64Value, "\(added)")
    }

    /// An attachment on a fresh city; the city and the attachment.
    func freshAttachment() async throws -> (city: Int64, attachment: Int64) {
        let city = try await freshFeature(layer: 0)
        let added = try await made(attachmentProbe(city, "addAttachment", name: "fresh.txt"), as: .admin)
        return (city, try #require(added["addAttachmentResult"]?["objectId"]?.int64Value, "\(added)"))
    }

    func attachmentProbe(_ city: Int64, _ operation: String, name: String, fields: [(String, String)] = []) -> Probe {
        Probe(
            path: "\(Self.service)/0/\(city)/\(operation)", fields: [("f", "json")] + fields,
            file: ("attachment", name, "text/plain", Array("note".utf8)))
    }

    /// The number of features a where clause selects (asked as the admin).
    func count(_ layer: Int, _ clause: String) async throws -> Int64 {
        let answer = try await made(
            .get("\(Self.service)/\(layer)/query?where=\(FormURLEncoding.percentEncode(clause))&returnCountOnly=true&f=json"), as: .admin)
        return answer["count"]?.int64Value ?? -1
    }
}
