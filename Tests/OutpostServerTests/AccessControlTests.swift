import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostServer

@Suite struct AccessControlTests {
    @Test func tokensRolesAndReplicaOwnership() async throws {
        try await withFreshDemoApp(options: ServerOptions(requireAuth: true)) { client, store in
            // Few rounds: the hash is the same function, only cheaper to test with.
            try store.users.addUser("ada", role: .admin, password: "admin-pass", rounds: 1000)
            try store.users.addUser("eve", role: .editor, password: "editor-pass", rounds: 1000)
            try store.users.addUser("ed", role: .editor, password: "editor2-pass", rounds: 1000)
            try store.users.addUser("vic", role: .viewer, password: "viewer-pass", rounds: 1000)
            #expect(throws: UserFailure.exists("EVE")) { try store.users.addUser("EVE", role: .viewer, password: "whatever1", rounds: 1000) }

            let info = try await get(client, "/arcgis/rest/info?f=json")
            #expect(info["authInfo"]?["isTokenBasedSecurity"] == true)
            #expect(info["authInfo"]?["tokenServicesUrl"]?.stringValue?.hasSuffix("/arcgis/sharing/rest/generateToken") == true)
            func token(_ user: String, _ password: String) async throws -> String {
                let answer = try await post(
                    client, "/arcgis/tokens/generateToken", [("f", "json"), ("username", user), ("password", password), ("expiration", "30")])
                #expect(answer["expires"]?.int64Value ?? 0 > Int64(Date().timeIntervalSince1970 * 1000) + 29 * 60_000)
                return try #require(answer["token"]?.stringValue)
            }
            let wrong = try await post(client, "/arcgis/tokens/generateToken", [("f", "json"), ("username", "vic"), ("password", "not-it-at-all")])
            #expect(wrong["error"]?["code"] == 400 && wrong["token"] == nil)

            // No token: 499; a bad or expired one: 498.
            #expect(try await get(client, "\(serviceURL)?f=json")["error"]?["code"] == 499)
            #expect(try await get(client, "\(serviceURL)?f=json&token=deadbeef")["error"]?["code"] == 498)
            let expired = try store.users.issueToken(for: ServerUser(name: "vic", role: .viewer), minutes: 0).token
            #expect(try await get(client, "\(serviceURL)?f=json&token=\(expired)")["error"]?["code"] == 498)

            // A viewer reads (also by header), cannot edit, and gets download-only replicas.
            let vic = try await token("vic", "viewer-pass")
            #expect(try await get(client, "\(layerURL)/query?where=1%3D1&returnCountOnly=true&f=json&token=\(vic)")["count"] == 2500)
            try await client.execute(
                uri: "\(layerURL)/query?where=1%3D1&returnCountOnly=true&f=json", method: .get,
                headers: [HTTPField.Name("X-Esri-Authorization")!: "Bearer \(vic)"]
            ) { response in
                #expect(json(response)["count"] == 2500)
            }
            let refusedEdit = try await post(
                client, "\(layerURL)/applyEdits",
                [("f", "json"), ("token", vic), ("adds", "[\(tree("{00000000-0000-0000-0000-00000000AC01}", height: 1))]")])
            #expect(refusedEdit["error"]?["code"] == 403)
            let viewerReplica = try await createTreeReplica(client, name: "viewer", extra: [("token", vic), ("syncDirection", "bidirectional")])
            let viewerReplicaId = try #require(viewerReplica["replicaID"]?.stringValue)
            let viewerInfo = try await get(client, "\(serviceURL)/replicas/\(viewerReplicaId)?f=json&token=\(vic)")
            #expect(viewerInfo["syncDirection"] == "download")
            #expect(try store.replicas.replica(service: "Demo", id: viewerReplicaId)?.owner == "vic")
            let viewerUpload = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("token", vic), ("replicaID", viewerReplicaId),
                    ("syncLayers", #"[{"id":2,"serverGen":\#(viewerReplica["layerServerGens"]?[0]?["serverGen"]?.int64Value ?? 0)}]"#),
                    ("edits", #"[{"id":2,"features":{"adds":[\#(tree("{00000000-0000-0000-0000-00000000AC02}", height: 1))]}}]"#),
                ])
            #expect(viewerUpload["error"]?["code"] == 400)

            // Replicas belong to their owner: another editor may neither sync nor unregister one;
            // `*` only touches the caller's own; an admin may do anything.
            let eve = try await token("eve", "editor-pass")
            let ed = try await token("ed", "editor2-pass")
            let ada = try await token("ada", "admin-pass")
            let owned = try await createTreeReplica(client, name: "eve's", extra: [("token", eve)])
            let ownedId = try #require(owned["replicaID"]?.stringValue)
            let generation = try #require(owned["layerServerGens"]?[0]?["serverGen"]?.int64Value)
            let syncFields: (String) -> [(String, String)] = { token in
                [
                    ("f", "json"), ("token", token), ("replicaID", ownedId), ("transportType", "esriTransportTypeEmbedded"),
                    ("syncLayers", #"[{"id":2,"serverGen":\#(generation)}]"#),
                ]
            }
            #expect(try await post(client, "\(serviceURL)/synchronizeReplica", syncFields(ed))["error"]?["code"] == 403)
            #expect(
                try await post(client, "\(serviceURL)/unRegisterReplica", [("f", "json"), ("token", ed), ("replicaID", ownedId)])["error"]?["code"]
                    == 403)
            _ = try await post(client, "\(serviceURL)/unRegisterReplica", [("f", "json"), ("token", ed), ("replicaID", "*")])
            #expect(try store.replicas.replica(service: "Demo", id: ownedId) != nil)
            #expect(try store.replicas.replica(service: "Demo", id: ownedId)?.owner == "eve")
            #expect(try await post(client, "\(serviceURL)/synchronizeReplica", syncFields(eve))["error"] == nil)
            #expect(try await post(client, "\(serviceURL)/synchronizeReplica", syncFields(ada))["error"] == nil)
            #expect(
                try await post(client, "\(serviceURL)/unRegisterReplica", [("f", "json"), ("token", eve), ("replicaID", ownedId)])["success"] == true)
            // Editors edit.
            let edit = try await post(
                client, "\(layerURL)/applyEdits",
                [("f", "json"), ("token", eve), ("adds", "[\(tree("{00000000-0000-0000-0000-00000000AC03}", height: 1))]")])
            #expect(edit["addResults"]?[0]?["success"] == true)
            // Removing a user ends their tokens.
            try store.users.removeUser("eve")
            #expect(try await get(client, "\(serviceURL)?f=json&token=\(eve)")["error"]?["code"] == 498)
        }
    }

    @Test func passwordsAreStoredSaltedAndSlow() throws {
        let store = try SpatiaLiteBackend(
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("outpost-users-\(UUID().uuidString)").path)
        try store.users.addUser("a", role: .viewer, password: "same-password", rounds: 1000)
        try store.users.addUser("b", role: .viewer, password: "same-password", rounds: 1000)
        let rows = try store.read { db in
            try Row.fetchAll(db, sql: "SELECT salt, hash FROM outpost_users ORDER BY name").map { ($0["salt"] as Data, $0["hash"] as Data) }
        }
        #expect(rows[0].1 != rows[1].1)  // salted: the same password, different hashes
        #expect(rows[0].0.count == 16 && rows[0].1.count == 32)
        #expect(passwordRounds >= 600_000)
        #expect(try store.users.verify(user: "a", password: "same-password")?.name == "a")
        #expect(try store.users.verify(user: "a", password: "same-passwore") == nil)
        #expect(try store.users.verify(user: "nobody", password: "same-password") == nil)
        #expect(throws: UserFailure.weakPassword) { try store.users.addUser("c", role: .viewer, password: "short") }
    }
}
