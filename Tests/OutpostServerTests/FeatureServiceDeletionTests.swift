import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Deleting a feature service's item deletes the service (docs/portal.md, "Deleting a
/// service"): an administrator's change, refused while a device holds a replica of it; its
/// data, attachment files and item go, and its name is free again.
@Suite struct FeatureServiceDeletionTests {
    static let portal = "/arcgis/sharing/rest"
    static let demo = "/arcgis/rest/services/Demo/FeatureServer"

    @Test(arguments: DemoBackend.all)
    func anAdministratorDeletesAServiceOnceNoDeviceHoldsAReplica(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, tokens in
            let (ada, eve) = (tokens["ada"]!, tokens["eve"]!)
            let attachments = (store.directory as NSString).appendingPathComponent("attachments")
            let seeded = Set((try? FileManager.default.contentsOfDirectory(atPath: attachments)) ?? [])
            let (headers, body) = multipart(fields: [("f", "json"), ("token", ada)], file: ("attachment", "photo.jpg", "image/jpeg", [1, 2, 3]))
            let added = try await client.execute(uri: "\(Self.demo)/0/2/addAttachment", method: .post, headers: headers, body: body) { json($0) }
            #expect(added["addAttachmentResult"]?["success"] == true, "\(added)")
            let files = Set(try FileManager.default.contentsOfDirectory(atPath: attachments))
            #expect(files.subtracting(seeded).count == 1, "\(files)")
            let replica = try await post(
                client, "\(Self.demo)/createReplica",
                [
                    ("f", "json"), ("token", ada), ("replicaName", "field"), ("layers", "0"), ("syncModel", "perLayer"),
                    ("transportType", "esriTransportTypeEmbedded"), ("returnAttachments", "false"),
                ])
            let replicaId = try #require(replica["replicaID"]?.stringValue, "\(replica)")
            // A finished job and its result file, made without registering a replica.
            let submitted = try await post(
                client, "\(Self.demo)/createReplica",
                [
                    ("f", "json"), ("token", ada), ("replicaName", "snapshot"), ("layers", "0"), ("syncModel", "none"), ("async", "true"),
                    ("transportType", "esriTransportTypeUrl"), ("dataFormat", "json"), ("returnAttachments", "false"),
                ])
            let statusURL = try #require(submitted["statusUrl"]?.stringValue, "\(submitted)")
            let jobPath = "/" + (statusURL.components(separatedBy: "/arcgis/").last.map { "arcgis/" + $0 } ?? "")
            var status: JSONValue = [:]
            for _ in 0..<600 where status["status"]?.stringValue != "Completed" {
                try await Task.sleep(for: .milliseconds(50))
                status = try await post(client, jobPath, [("f", "json"), ("token", ada)])
            }
            let resultURL = try #require(status["resultUrl"]?.stringValue, "\(status)")
            let resultPath = "/" + (resultURL.components(separatedBy: "/arcgis/").last.map { "arcgis/" + $0 } ?? "")
            #expect(try await post(client, resultPath, [("token", ada)])["error"] == nil)
            let item = ServiceItems.id(forService: "Demo")
            let delete = { (token: String) in
                try await post(client, "\(Self.portal)/content/users/outpost/items/\(item)/delete", [("f", "json"), ("token", token)])
            }

            // An editor may not; an administrator may not while a device holds a replica.
            #expect(try await delete(eve)["error"]?["code"]?.int64Value == 403)
            let refused = try await delete(ada)
            #expect(refused["error"]?["code"]?.int64Value == 409, "\(refused)")
            #expect("\(refused)".contains("1 replica(s) are registered"), "\(refused)")
            #expect(try store.schema.catalog().service(named: "Demo") != nil)

            let unregistered = try await post(
                client, "\(Self.demo)/unRegisterReplica", [("f", "json"), ("token", ada), ("replicaID", replicaId)])
            #expect(unregistered["success"]?.boolValue == true, "\(unregistered)")
            let definition = try store.schema.service(named: "Demo").definition
            let deleted = try await delete(ada)
            #expect(deleted["success"]?.boolValue == true && deleted["itemId"]?.stringValue == item, "\(deleted)")

            // The service, its item and its attachment files are gone; the other service stays.
            #expect(try store.schema.catalog().service(named: "Demo") == nil)
            let left = try FileManager.default.contentsOfDirectory(atPath: attachments)
            #expect(left.isEmpty, "\(left) of \(seeded)")
            let info = try await post(client, Self.demo, [("f", "json"), ("token", ada)])
            #expect(info["error"]?["code"]?.int64Value == 404, "\(info)")
            let found = try await post(client, "\(Self.portal)/content/items/\(item)", [("f", "json"), ("token", ada)])
            #expect(found["error"] != nil, "\(found)")
            let parcels = try await post(
                client, "/arcgis/rest/services/Parcels/FeatureServer/0/query", [("f", "json"), ("token", ada), ("where", "1=1")])
            #expect(parcels["features"]?.arrayValue?.isEmpty == false, "\(parcels)")
            let again = try await delete(ada)
            #expect(again["error"]?["code"]?.int64Value == 400, "\(again)")  // the portal's "Item does not exist"

            // The name is free again, and nothing of the old service reaches the new one.
            try store.schema.createService(definition)
            for layer in definition.layers {
                #expect(try store.features.count(service: "Demo", layer: layer.id) == 0)
            }
            // Its ended job and result file are not the new service's.
            let job = try await post(client, jobPath, [("f", "json"), ("token", ada)])
            #expect(job["error"]?["code"]?.int64Value == 404 || job["error"]?["code"]?.int64Value == 400, "\(job)")
            let file = try await post(client, resultPath, [("token", ada)])
            #expect(file["error"]?["code"]?.int64Value == 404, "\(file)")
            let sync = try await post(
                client, "\(Self.demo)/synchronizeReplica",
                [("f", "json"), ("token", ada), ("replicaID", replicaId), ("transportType", "esriTransportTypeEmbedded")])
            #expect(sync["error"] != nil, "\(sync)")
        }
    }
}
