import Foundation
import OutpostClient
import OutpostTesting
import OutpostWire
import Testing

/// Recipe 6 (docs/testing-your-app.md): a schema change seen by the next sync. An admin adds a
/// field to the layer (`addToDefinition`); the device's replica keeps syncing both ways, its
/// file keeps its own fields, and the sync's result names the added field
/// (`SyncResult.schemaChanges`): the app downloads a new geodatabase to get its values.
@Suite(.serialized) struct SchemaRecipeTests {
    @Test func aFieldAddedByAnAdminIsReportedByTheNextSyncWhichKeepsWorking() async throws {
        let server = try await OutpostTestServer.start(backend: try Recipe.backend())
        let folder = try Recipe.deviceFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let task = GeodatabaseSyncTask(url: server.featureServer())
        let geodatabase = try await Recipe.generateTrees(task, in: folder)
        let trees = try geodatabase.featureTable(layerId: 2)
        let local = try geodatabase.query(trees)
        try #require(local.count >= 2, "the corner holds two trees")
        let (edited, changedOnline) = (try #require(local[0]["GlobalID"]?.stringValue), try #require(local[1]["GlobalID"]?.stringValue))
        #expect(try await Recipe.sync(task, geodatabase).schemaChanges == nil, "nothing changed yet")

        let admin = ServiceConnection(serviceURL: server.featureServer())
        let added = try await admin.postForm(
            server.url.appendingPathComponent("rest/admin/services/Demo/FeatureServer/2/addToDefinition"),
            [
                (
                    "addToDefinition",
                    #"{"fields":[{"name":"inspected","type":"esriFieldTypeString","alias":"Inspected","length":50,"nullable":true}]}"#
                )
            ])
        #expect(added["success"] == true, "\(added)")
        let layer = try await admin.getJSON(admin.url("2"))
        #expect(layer["fields"]?.arrayValue?.contains { $0["name"] == "inspected" } == true, "the layer lists the field")

        // Online, a colleague fills the new field of both trees and renames the second.
        for (globalId, species) in [(edited, nil), (changedOnline, "Renamed online")] as [(String, String?)] {
            let oid = try #require(try await Recipe.serverTree(admin, globalId)?["OBJECTID"]?.int64Value)
            let species = species.map { #","species":"\#($0)""# } ?? ""
            let answer = try await admin.postForm(
                admin.url("2/applyEdits"), [("updates", #"[{"attributes":{"OBJECTID":\#(oid),"inspected":"2026-11-28"\#(species)}}]"#)])
            #expect(answer["updateResults"]?[0]?["success"] == true, "\(answer)")
        }
        // Offline, the device edits the first.
        try geodatabase.update(LocalFeature(attributes: ["GlobalID": .string(edited), "species": "Offline name"]), in: trees)

        let result = try await Recipe.sync(task, geodatabase)
        #expect(result.schemaChanges == [SchemaChange(layerId: 2, addedFields: ["inspected"])])
        #expect(result.editsUploaded == 1 && result.failedEdits.isEmpty, "\(result)")
        #expect(try !geodatabase.hasLocalEdits)
        // Both ways still work: the device's edit is on the server, its new field kept; the
        // online rename is on the device, whose table keeps its own fields.
        let serverTree = try await Recipe.serverTree(admin, edited)
        #expect(serverTree?["species"] == "Offline name" && serverTree?["inspected"] == "2026-11-28", "\(String(describing: serverTree))")
        let renamed = try geodatabase.query(trees).first { $0["GlobalID"]?.stringValue == changedOnline }
        #expect(renamed?["species"] == "Renamed online")
        #expect(renamed?["inspected"] == nil, "the file keeps its own fields")
        // The next sync reports it again until the app downloads a new geodatabase.
        #expect(try await Recipe.sync(task, geodatabase).schemaChanges?.first?.addedFields == ["inspected"])
        geodatabase.close()
        await server.stop()
    }
}
