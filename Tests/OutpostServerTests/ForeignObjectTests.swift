import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostServer

/// What a hostile review of issue 43's fixes found: another user's upload taken as attachment
/// bytes through `applyEdits`, and the item quota passed by concurrent requests, by
/// descriptions and by thumbnails. Each test failed before its fix.
@Suite struct ForeignObjectTests {
    static let service = "/arcgis/rest/services/Demo/FeatureServer"
    static let portal = "/arcgis/sharing/rest"

    @Test func applyEditsTakesNoOtherUsersUploadAsAttachmentBytes() async throws {
        try await HardeningTests.withSecuredApp { client, store, tokens in
            let eve = try #require(tokens["eve"])
            let (headers, body) = multipart(
                fields: [("f", "json"), ("token", eve)], file: ("file", "secret.txt", "text/plain", Array("eve's secret".utf8)))
            let uploaded = try await client.execute(uri: "\(Self.service)/uploads/upload", method: .post, headers: headers, body: body) { json($0) }
            let upload = try #require(uploaded["item"]?["itemID"]?.stringValue, "\(uploaded)")
            let found = try await get(
                client, "\(Self.service)/0/query?f=json&where=1%3D1&outFields=OBJECTID,GlobalID&resultRecordCount=1&token=\(eve)")
            let city = try #require(found["features"]?[0]?["attributes"], "\(found)")
            let (oid, parent) = (try #require(city["OBJECTID"]?.int64Value), try #require(city["GlobalID"]?.stringValue))
            let adds =
                #"{"adds":[{"globalId":"{00000000-0000-4000-8000-00000000A001}","parentGlobalId":"\#(parent)","uploadId":"\#(upload)","name":"stolen.txt"}]}"#
            func attachments() async throws -> Int {
                try await get(client, "\(Self.service)/0/\(oid)/attachments?f=json&token=\(eve)")["attachmentInfos"]?.arrayValue?.count ?? -1
            }
            try store.users.addUser("ed", role: .editor, password: "ed-password", rounds: 1000)
            let ed = try store.users.issueToken(for: ServerUser(name: "ed", role: .editor), minutes: 30).token
            let before = try await attachments()
            for (path, pairs) in [
                ("\(Self.service)/0/applyEdits", [("attachments", adds)]),
                ("\(Self.service)/applyEdits", [("edits", #"[{"id":0,"attachments":\#(adds)}]"#)]),
            ] {
                let answer = try await post(client, path, [("f", "json"), ("token", ed), ("useGlobalIds", "true")] + pairs)
                #expect(answer["error"]?["code"] == 400, "\(path): \(answer)")
            }
            #expect(try await attachments() == before, "nothing attached")
            let own = try await post(
                client, "\(Self.service)/0/applyEdits", [("f", "json"), ("token", eve), ("useGlobalIds", "true"), ("attachments", adds)])
            #expect(own["attachments"]?["addResults"]?[0]?["success"] == true, "the maker may: \(own)")
        }
    }

    @Test func theItemQuotaHoldsAgainstConcurrentAddsDescriptionsAndThumbnails() async throws {
        try await HardeningTests.withSecuredApp(options: ServerOptions(requireAuth: true, itemQuotaBytes: 2_000)) { client, store, tokens in
            let eve = try #require(tokens["eve"])
            let answers = try await withThrowingTaskGroup(of: JSONValue.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await post(
                            client, "\(Self.portal)/content/users/eve/addItem",
                            [
                                ("f", "json"), ("token", eve), ("type", "Code Sample"), ("title", "t\(index)"),
                                ("text", String(repeating: "x", count: 900)),
                            ])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let held = try store.portal.items().filter { $0.owner == "eve" }.reduce(Int64(0)) {
                $0 + $1.size + PortalController<SpatiaLiteBackend>.describedBytes($1)
            }
            #expect(held <= 2_000, "\(held) bytes held; \(answers.filter { $0["success"] == true }.count) adds succeeded")
            // A description is stored bytes too, and so is a thumbnail.
            let described = try await post(
                client, "\(Self.portal)/content/users/eve/addItem",
                [("f", "json"), ("token", eve), ("type", "Code Sample"), ("title", "d"), ("description", String(repeating: "d", count: 3_000))])
            #expect(described["error"]?["code"] == 413, "\(described)")
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 3_000)
            let (headers, body) = multipart(
                fields: [("f", "json"), ("token", eve), ("type", "Code Sample"), ("title", "p")], file: ("thumbnail", "p.png", "image/png", png))
            try await client.execute(uri: "\(Self.portal)/content/users/eve/addItem", method: .post, headers: headers, body: body) {
                #expect(json($0)["error"]?["code"] == 413, "\(String(buffer: $0.body))")
            }
        }
    }
}
