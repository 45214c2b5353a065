import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

func withStoreApp(
    limits: UploadLimits = UploadLimits(), _ body: @Sendable (any TestClientProtocol, SpatiaLiteBackend) async throws -> Void
) async throws {
    let store = try makeDemoStore(label: "attachments")
    let app = Application(router: buildRouter(store: store, limits: limits))
    try await app.test(.router) { client in try await body(client, store) }
}

/// A multipart body with text fields and one file part.
func multipart(fields: [(String, String)], file: (field: String, name: String, type: String, bytes: [UInt8])?) -> (HTTPFields, ByteBuffer) {
    let boundary = "----outpost\(UUID().uuidString)"
    var body: [UInt8] = []
    for (name, value) in fields {
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }
    if let file {
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.field)\"; filename=\"\(file.name)\"\r\nContent-Type: \(file.type)\r\n\r\n"
                .utf8)
        body += file.bytes
        body += Array("\r\n".utf8)
    }
    body += Array("--\(boundary)--\r\n".utf8)
    return ([.contentType: "multipart/form-data; boundary=\(boundary)"], ByteBuffer(bytes: body))
}

let cities = "/arcgis/rest/services/Demo/FeatureServer/0"

@Suite struct AttachmentRoutesTests {
    @Test func addListDownloadUpdateDelete() async throws {
        try await withStoreApp { client, store in
            // Binary content full of CR, LF and dashes: the parser must not see boundaries in it.
            var bytes: [UInt8] = []
            var generator = SeededGenerator(seed: 3)
            for i in 0..<300_000 { bytes.append(i % 7 == 0 ? 0x0D : i % 11 == 0 ? 0x2D : UInt8(truncatingIfNeeded: generator.next())) }
            let generation = try store.edits.currentGeneration()
            let (headers, body) = multipart(fields: [("f", "json")], file: ("attachment", "photo.jpg", "image/jpeg", bytes))
            let attachmentId = try await client.execute(uri: "\(cities)/2/addAttachment", method: .post, headers: headers, body: body) { response in
                let result = json(response)["addAttachmentResult"]
                #expect(result?["success"] == true)
                #expect(result?["globalId"]?.stringValue?.hasPrefix("{") == true)
                return result?["objectId"]?.int64Value ?? 0
            }
            #expect(attachmentId > 0)
            #expect(try store.edits.currentGeneration() == generation + 1)
            try await client.execute(uri: "\(cities)/2/attachments?f=json", method: .get) { response in
                let info = json(response)["attachmentInfos"]?.arrayValue?.last
                #expect(info?["name"] == "photo.jpg" && info?["size"] == 300_000 && info?["contentType"] == "image/jpeg")
            }
            try await client.execute(uri: "\(cities)/2/attachments/\(attachmentId)", method: .get) { response in
                #expect(Array(buffer: response.body) == bytes)
                #expect(response.headers[.contentType] == "image/jpeg")
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: store.attachmentsDirectory)
            #expect(files.count == 1)

            let (updateHeaders, updateBody) = multipart(
                fields: [("f", "json"), ("attachmentId", "\(attachmentId)")],
                file: ("attachment", "note.txt", "text/plain", Array("new".utf8)))
            try await client.execute(uri: "\(cities)/2/updateAttachment", method: .post, headers: updateHeaders, body: updateBody) { response in
                #expect(json(response)["updateAttachmentResult"]?["success"] == true)
            }
            try await client.execute(uri: "\(cities)/2/attachments/\(attachmentId)", method: .get) { response in
                #expect(String(buffer: response.body) == "new")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.attachmentsDirectory).count == 1, "the replaced file is gone")

            try await client.execute(
                uri: "\(cities)/2/deleteAttachments", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("attachmentIds", "\(attachmentId),99999")])
            ) { response in
                let results = json(response)["deleteAttachmentResults"]?.arrayValue ?? []
                #expect(results.map { $0["success"] } == [true, false])
                #expect(results[1]["error"]?["code"] == 1019)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.attachmentsDirectory).isEmpty)
            let tombstone = try store.read { db in
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM outpost_tombstones WHERE kind = 'attachment' AND object_id = ?", arguments: [attachmentId])
            }
            #expect(tombstone == 1)
        }
    }

    @Test func attachmentByUploadIdAndMultiPartUploads() async throws {
        try await withStoreApp { client, store in
            let itemID = try await client.execute(
                uri: "/arcgis/rest/services/Demo/FeatureServer/uploads/register", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("itemName", "report.pdf")])
            ) { response in
                #expect(json(response)["item"]?["committed"] == false)
                return json(response)["item"]?["itemID"]?.stringValue ?? ""
            }
            #expect(isValidUploadID(itemID))
            for (part, text) in [(2, "world"), (1, "hello ")] {
                let (headers, body) = multipart(
                    fields: [("f", "json"), ("partId", "\(part)")], file: ("file", "blob", "application/octet-stream", Array(text.utf8)))
                try await client.execute(
                    uri: "/arcgis/rest/services/Demo/FeatureServer/uploads/\(itemID)/uploadPart", method: .post, headers: headers, body: body
                ) { response in
                    #expect(json(response)["success"] == true)
                }
            }
            try await client.execute(uri: "/arcgis/rest/services/Demo/FeatureServer/uploads/\(itemID)/parts?f=json", method: .get) { response in
                #expect(json(response)["parts"] == ["1", "2"])
            }
            try await client.execute(
                uri: "/arcgis/rest/services/Demo/FeatureServer/uploads/\(itemID)/commit", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("parts", "1,2")])
            ) { response in
                #expect(json(response)["item"]?["committed"] == true)
            }
            try await client.execute(
                uri: "\(cities)/3/addAttachment", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("uploadId", itemID)])
            ) { response in
                #expect(json(response)["addAttachmentResult"]?["success"] == true)
            }
            try await client.execute(uri: "\(cities)/3/attachments?f=json", method: .get) { response in
                let info = json(response)["attachmentInfos"]?.arrayValue?.last
                #expect(info?["name"] == "report.pdf" && info?["contentType"] == "application/pdf" && info?["size"] == 11)
            }
            try await client.execute(
                uri: "/arcgis/rest/services/Demo/FeatureServer/uploads/\(itemID)/delete", method: .post, headers: formHeaders,
                body: form([("f", "json")])
            ) { response in
                #expect(json(response)["success"] == true)
            }
            try await client.execute(uri: "/arcgis/rest/services/Demo/FeatureServer/uploads/\(itemID)?f=json", method: .get) { response in
                #expect(json(response)["error"]?["code"] == 404)
            }
            // The attachment kept its own copy.
            try await client.execute(uri: "\(cities)/3/attachments?f=json", method: .get) { response in
                let id = json(response)["attachmentInfos"]?.arrayValue?.last?["id"]?.int64Value ?? 0
                #expect(id > 0)
            }
        }
    }

    @Test func singleShotUploadAndItsInfo() async throws {
        try await withStoreApp { client, _ in
            let (headers, body) = multipart(fields: [("f", "json"), ("description", "lake")], file: ("file", "lake.tif", "image/tiff", [1, 2, 3]))
            let itemID = try await client.execute(
                uri: "/arcgis/rest/services/Demo/FeatureServer/uploads/upload", method: .post, headers: headers, body: body
            ) { response in
                #expect(json(response)["item"]?["itemName"] == "lake.tif")
                return json(response)["item"]?["itemID"]?.stringValue ?? ""
            }
            try await client.execute(uri: "/arcgis/rest/services/Demo/FeatureServer/uploads/\(itemID)?f=json", method: .get) { response in
                #expect(json(response)["description"] == "lake" && json(response)["committed"] == true)
            }
        }
    }

    @Test func oversizedBodiesAreRefusedAndLeaveNoFiles() async throws {
        try await withStoreApp(limits: UploadLimits(maxBodyBytes: 10_000, maxFieldBytes: 5_000)) { client, store in
            let (headers, body) = multipart(
                fields: [("f", "json")], file: ("attachment", "big.bin", "application/octet-stream", Array(repeating: 7, count: 20_000)))
            try await client.execute(uri: "\(cities)/2/addAttachment", method: .post, headers: headers, body: body) { response in
                #expect(json(response)["error"]?["code"] == 413)
            }
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: store.temporaryDirectory)) ?? []
            #expect(leftovers.isEmpty)
            #expect((try? FileManager.default.contentsOfDirectory(atPath: store.attachmentsDirectory))?.isEmpty ?? true)
        }
    }

    @Test func attachmentNamesCannotEscape() {
        #expect(SpatiaLiteEdits.sanitizedAttachmentName("../../etc/passwd") == "etcpasswd")
        #expect(SpatiaLiteEdits.sanitizedAttachmentName("..\\x.txt") == "x.txt")
        #expect(SpatiaLiteEdits.sanitizedAttachmentName("a\"b\r\n.txt") == "ab.txt")
        #expect(SpatiaLiteEdits.sanitizedAttachmentName("") == "attachment")
        #expect(!isValidUploadID("../x") && !isValidUploadID("i123"))
    }

    /// End to end: a hostile file name is stored cleaned, the bytes land in `attachments/`
    /// under a name the server chose, and nothing appears elsewhere in the data folder.
    @Test func aHostileFileNameWritesOnlyInsideTheAttachmentsFolder() async throws {
        try await withStoreApp { client, store in
            let before = Set(FileManager.default.subpaths(atPath: store.directory) ?? [])
            let (headers, body) = multipart(fields: [("f", "json")], file: ("attachment", "../../outpost.sqlite", "text/plain", Array("x".utf8)))
            var id: Int64?
            try await client.execute(uri: "\(cities)/7/addAttachment", method: .post, headers: headers, body: body) { response in
                id = json(response)["addAttachmentResult"]?["objectId"]?.int64Value
            }
            let attachmentId = try #require(id)
            try await client.execute(uri: "\(cities)/7/attachments/\(attachmentId)", method: .get) { response in
                #expect(response.headers[.contentDisposition] == #"attachment; filename="outpost.sqlite""#)
                #expect(String(buffer: response.body) == "x")
            }
            let added = Set(FileManager.default.subpaths(atPath: store.directory) ?? []).subtracting(before)
                .filter { !$0.hasPrefix("outpost.sqlite") && $0 != "tmp" && $0 != "attachments" }
            #expect(added.count == 1 && added.allSatisfy { $0.hasPrefix("attachments/") && $0.hasSuffix(".bin") }, "\(added)")
        }
    }

    @Test func deletingAFeatureRemovesItsAttachmentFiles() async throws {
        try await withStoreApp { client, store in
            let (headers, body) = multipart(fields: [("f", "json")], file: ("attachment", "a.txt", "text/plain", Array("x".utf8)))
            try await client.execute(uri: "\(cities)/7/addAttachment", method: .post, headers: headers, body: body) { _ in }
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.attachmentsDirectory).count == 1)
            try await client.execute(
                uri: "\(cities)/deleteFeatures", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("objectIds", "7")])
            ) { response in
                #expect(json(response)["deleteResults"]?.arrayValue?.first?["success"] == true)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.attachmentsDirectory).isEmpty)
        }
    }
}

@Suite struct ApplyEditsAttachmentTests {
    static let feature = "{3F2504E0-4F89-41D3-9A0C-0305E82C3301}"
    static let attachment = "{3F2504E0-4F89-41D3-9A0C-0305E82C3302}"

    func applyEdits(_ client: any TestClientProtocol, _ fields: [(String, String)]) async throws -> JSONValue {
        try await client.execute(uri: "\(cities)/applyEdits", method: .post, headers: formHeaders, body: form([("f", "json")] + fields)) { json($0) }
    }

    @Test func featureAndAttachmentInOneTransaction() async throws {
        try await withStoreApp { client, store in
            let adds = #"[{"attributes":{"name":"Camp","GlobalID":"\#(Self.feature)"},"geometry":{"x":10,"y":50}}]"#
            let attachments =
                #"{"adds":[{"globalId":"\#(Self.attachment)","parentGlobalId":"\#(Self.feature)","name":"note.txt","contentType":"text/plain","data":"aGVsbG8gZmllbGQ="}]}"#
            let answer = try await applyEdits(client, [("useGlobalIds", "true"), ("adds", adds), ("attachments", attachments)])
            #expect(answer["addResults"]?.arrayValue?.first?["success"] == true)
            let added = try #require(answer["attachments"]?["addResults"]?.arrayValue?.first)
            #expect(added["success"] == true && added["globalId"] == .string(Self.attachment))
            let oid = try #require(answer["addResults"]?.arrayValue?.first?["objectId"]?.int64Value)
            let attachmentId = try #require(added["objectId"]?.int64Value)
            try await client.execute(uri: "\(cities)/\(oid)/attachments/\(attachmentId)", method: .get) { response in
                #expect(String(buffer: response.body) == "hello field")
            }
            let generations = try store.read { db in
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT count(DISTINCT outpost_gen) FROM (SELECT outpost_gen FROM f_demo_0 WHERE GlobalID = ? UNION ALL SELECT outpost_gen FROM f_demo_0__attach WHERE GLOBALID = ?)",
                    arguments: [Self.feature, Self.attachment])
            }
            #expect(generations == 1, "the feature and its attachment share one generation")

            let update = #"{"updates":[{"globalId":"\#(Self.attachment)","name":"note-v2.txt","data":"djI="}]}"#
            let updated = try await applyEdits(client, [("useGlobalIds", "true"), ("attachments", update)])
            #expect(updated["attachments"]?["updateResults"]?.arrayValue?.first?["success"] == true)
            try await client.execute(uri: "\(cities)/\(oid)/attachments/\(attachmentId)", method: .get) { response in
                #expect(String(buffer: response.body) == "v2")
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"note-v2.txt\"")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.attachmentsDirectory).count == 1)
            let deleted = try await applyEdits(
                client, [("useGlobalIds", "true"), ("attachments", #"{"deletes":["\#(Self.attachment.lowercased())"]}"#)])
            #expect(deleted["attachments"]?["deleteResults"]?.arrayValue?.first?["success"] == true)
            #expect(try FileManager.default.contentsOfDirectory(atPath: store.attachmentsDirectory).isEmpty)
        }
    }

    @Test func aFailedAttachmentRollsBackTheRequestAndLeavesNoFile() async throws {
        try await withStoreApp { client, store in
            let adds = #"[{"attributes":{"name":"Camp","GlobalID":"\#(Self.feature)"},"geometry":{"x":10,"y":50}}]"#
            let orphan = #"{"adds":[{"globalId":"\#(Self.attachment)","parentGlobalId":"{00000000-0000-4000-8000-000000000000}","data":"eA=="}]}"#
            let answer = try await applyEdits(
                client, [("useGlobalIds", "true"), ("adds", adds), ("attachments", orphan), ("rollbackOnFailure", "true")])
            #expect(answer["addResults"]?.arrayValue?.first?["error"]?["code"] == 1003)
            #expect(answer["attachments"]?["addResults"]?.arrayValue?.first?["error"]?["code"] == 1019)
            #expect(try store.features.count(service: "Demo", layer: 0) == 243)
            #expect((try? FileManager.default.contentsOfDirectory(atPath: store.attachmentsDirectory))?.isEmpty ?? true)
        }
    }

    @Test func attachmentEditsNeedGlobalIds() async throws {
        try await withStoreApp { client, _ in
            let answer = try await applyEdits(client, [("attachments", #"{"deletes":["\#(Self.attachment)"]}"#)])
            #expect(answer["error"]?["details"] == ["'attachments' parameter is invalid: attachment edits need useGlobalIds=true"])
        }
    }
}
