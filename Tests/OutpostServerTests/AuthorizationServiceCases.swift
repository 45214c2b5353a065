import Foundation
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire

@testable import OutpostServer

/// The matrix's requests for a feature service's rows: the demo's `Demo` (layers 0 and 2, sync
/// enabled) and what the owner made of it.
extension MatrixCase {
    static let service = AuthorizationSession.service
    static let owned = AuthorizationSession.owned

    static var featureServiceCases: [MatrixCase] {
        [
            .read("FeatureServer") { _ in "\(service)?f=json" },
            .read("FeatureServer", "through a folder") { _ in "/arcgis/rest/services/Field/Points/FeatureServer?f=json" },
            .read("FeatureServer/layers") { _ in "\(service)/layers?f=json" },
            .read("FeatureServer/:layer") { _ in "\(service)/2?f=json" },
            .read("FeatureServer/:layer/query") { _ in "\(service)/2/query?where=1%3D1&returnCountOnly=true&f=json" },
            .read("FeatureServer/:layer/:oid") { _ in "\(service)/2/1?f=json" },
            .read("FeatureServer/:layer/queryAttachments") { s in "\(service)/0/queryAttachments?objectIds=\(s.objects.city)&f=json" },
            .read("FeatureServer/:layer/:oid/attachments") { s in "\(service)/0/\(s.objects.city)/attachments?f=json" },
            .read("FeatureServer/:layer/:oid/attachments/:attachment") { s in "\(service)/0/\(s.objects.city)/attachments/\(s.objects.attachment)" },
            .read("FeatureServer/:layer/queryRelatedRecords") { s in
                "\(service)/0/queryRelatedRecords?objectIds=\(s.objects.city)&relationshipId=0&f=json"
            },
            .post(
                "FeatureServer/applyEdits", make: adding("applyEdits") { id in [("edits", #"[{"id":2,"adds":[\#(tree(id, height: 2))]}]"#)] },
                happened: treeAdded),
            .post(
                "FeatureServer/:layer/applyEdits", make: adding("2/applyEdits") { id in [("adds", "[\(tree(id, height: 2))]")] }, happened: treeAdded),
            .post(
                "FeatureServer/:layer/addFeatures", make: adding("2/addFeatures") { id in [("features", "[\(tree(id, height: 2))]")] },
                happened: treeAdded),
            .post(
                "FeatureServer/:layer/updateFeatures",
                make: { s, _ in
                    let oid = try await s.freshFeature()
                    let update = #"[{"attributes":{"OBJECTID":\#(oid),"species":"Updated"}}]"#
                    return Probe(path: "\(service)/2/updateFeatures", fields: [("f", "json"), ("features", update)], object: "\(oid)")
                }, happened: { s, p in try await s.count(2, "OBJECTID = \(p.object) AND species = 'Updated'") == 1 }),
            .post(
                "FeatureServer/:layer/deleteFeatures",
                make: { s, _ in
                    let oid = try await s.freshFeature()
                    return Probe(path: "\(service)/2/deleteFeatures", fields: [("f", "json"), ("objectIds", "\(oid)")], object: "\(oid)")
                }, happened: { s, p in try await s.count(2, "OBJECTID = \(p.object)") == 0 }),
            .post(
                "FeatureServer/:layer/:oid/addAttachment",
                make: { s, _ in
                    let city = try await s.freshFeature(layer: 0)
                    var probe = s.attachmentProbe(city, "addAttachment", name: "added.txt")
                    probe.object = "\(city)"
                    return probe
                }, happened: { s, p in try await !s.attachmentNames(p.object).isEmpty }),
            .post(
                "FeatureServer/:layer/:oid/addAttachment", "uploadId of the owner's upload", subject: owned, alsoNeeds: "FeatureServer/uploads/:item",
                make: { s, _ in
                    let upload = try await s.freshUpload(parts: true)
                    _ = try await s.made(Probe(path: "\(service)/uploads/\(upload)/commit", fields: [("f", "json"), ("parts", "1")]))
                    let city = try await s.freshFeature(layer: 0)
                    return Probe(path: "\(service)/0/\(city)/addAttachment", fields: [("f", "json"), ("uploadId", upload)], object: "\(city)")
                }, happened: { s, p in try await !s.attachmentNames(p.object).isEmpty }),
            .post(
                "FeatureServer/:layer/:oid/updateAttachment",
                make: { s, _ in
                    let (city, attachment) = try await s.freshAttachment()
                    var probe = s.attachmentProbe(city, "updateAttachment", name: "updated.txt", fields: [("attachmentId", "\(attachment)")])
                    probe.object = "\(city)"
                    return probe
                }, happened: { s, p in try await s.attachmentNames(p.object) == ["updated.txt"] }),
            .post(
                "FeatureServer/:layer/:oid/deleteAttachments",
                make: { s, _ in
                    let (city, attachment) = try await s.freshAttachment()
                    return Probe(
                        path: "\(service)/0/\(city)/deleteAttachments", fields: [("f", "json"), ("attachmentIds", "\(attachment)")], object: "\(city)"
                    )
                }, happened: { s, p in try await s.attachmentNames(p.object).isEmpty }),
        ]
    }

    /// A request adding a tree with a new GlobalID (the probe's object).
    static func adding(_ operation: String, _ fields: @escaping @Sendable (String) -> [(String, String)]) -> Make {
        { _, _ in
            let id = "{\(UUID().uuidString)}"
            return Probe(path: "\(service)/\(operation)", fields: [("f", "json")] + fields(id), object: id)
        }
    }

    static let treeAdded: Effect = { s, p in try await s.count(2, "GlobalID = '\(p.object)'") == 1 }

    static var syncCases: [MatrixCase] {
        [
            .post("FeatureServer/createReplica") { s, _ in s.createReplica() },
            .post(
                "FeatureServer/synchronizeReplica", subject: owned,
                make: { s, _ in
                    Probe(
                        path: "\(service)/synchronizeReplica",
                        fields: [
                            ("f", "json"), ("replicaID", s.objects.replica), ("transportType", "esriTransportTypeEmbedded"),
                            ("syncLayers", #"[{"id":2,"serverGen":\#(s.objects.replicaGeneration),"syncDirection":"download"}]"#),
                        ])
                }),
            .post(
                "FeatureServer/unRegisterReplica", subject: owned,
                make: { s, _ in
                    let id = try await s.freshReplica()
                    return Probe(path: "\(service)/unRegisterReplica", fields: [("f", "json"), ("replicaID", id)], object: id)
                }, happened: { s, p in try s.store.replicas.replica(service: "Demo", id: p.object) == nil }),
            .list(
                "FeatureServer/replicas", subject: owned, path: { _ in "\(service)/replicas?f=json" },
                shows: { s, a in holds(a.json, "replicaID", s.objects.replica) }),
            .read("FeatureServer/replicas/:replica", subject: owned) { s in "\(service)/replicas/\(encoded(s.objects.replica))?f=json" },
            .read("FeatureServer/replicas/:replica/conflicts", subject: owned) { s in
                "\(service)/replicas/\(encoded(s.objects.replica))/conflicts?f=json"
            },
            .read("FeatureServer/jobs/:job", subject: owned) { s in "\(service)/jobs/\(s.objects.replicaJob)?f=json" },
            .read("FeatureServer/jobs/:job/status", subject: owned) { s in "\(service)/jobs/\(s.objects.replicaJob)/status?f=json" },
            .read("replicafiles/:file", subject: owned) { s in "/arcgis/rest/services/Demo/replicafiles/\(s.objects.resultFile)" },
            .post(
                "FeatureServer/uploads/upload",
                make: { _, _ in
                    Probe(
                        path: "\(service)/uploads/upload", fields: [("f", "json")], file: ("file", "edits.json", "application/json", Array("[]".utf8))
                    )
                }),
            .post("FeatureServer/uploads/register") { s, _ in
                Probe(path: "\(service)/uploads/register", fields: [("f", "json"), ("itemName", s.unique("upload") + ".json")])
            },
            .read("FeatureServer/uploads/:item", subject: owned) { s in "\(service)/uploads/\(s.objects.upload)?f=json" },
            .read("FeatureServer/uploads/:item/parts", subject: owned) { s in "\(service)/uploads/\(s.objects.upload)/parts?f=json" },
            .post(
                "FeatureServer/uploads/:item/uploadPart", subject: owned,
                make: { s, _ in
                    let id = try await s.freshUpload()
                    return Probe(
                        path: "\(service)/uploads/\(id)/uploadPart", fields: [("f", "json"), ("partId", "1")],
                        file: ("file", "part1", "application/octet-stream", Array("[]".utf8)), object: id)
                }, happened: { s, p in try !s.store.uploads.uploadParts(service: "Demo", itemID: p.object).isEmpty }),
            .post(
                "FeatureServer/uploads/:item/commit", subject: owned,
                make: { s, _ in
                    let id = try await s.freshUpload(parts: true)
                    return Probe(path: "\(service)/uploads/\(id)/commit", fields: [("f", "json"), ("parts", "1")], object: id)
                }, happened: { s, p in try s.store.uploads.upload(service: "Demo", itemID: p.object).committed }),
            .post(
                "FeatureServer/uploads/:item/delete", subject: owned,
                make: { s, _ in
                    let id = try await s.freshUpload()
                    return Probe(path: "\(service)/uploads/\(id)/delete", fields: [("f", "json")], object: id)
                }, happened: { s, p in (try? s.store.uploads.upload(service: "Demo", itemID: p.object)) == nil }),
        ]
    }

    static func encoded(_ id: String) -> String { FormURLEncoding.percentEncode(id) }
}

extension AuthorizationSession {
    /// The names of a city's attachments (asked as the admin).
    func attachmentNames(_ city: String) async throws -> [String] {
        let answer = try await made(.get("\(Self.service)/0/\(city)/attachments?f=json"), as: .admin)
        return answer["attachmentInfos"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
    }
}
