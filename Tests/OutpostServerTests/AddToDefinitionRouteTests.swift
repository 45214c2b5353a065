import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// `addToDefinition` (issue 47) on both backends: an admin adds a field the layer then lists;
/// a bad definition, a taken or reserved name, a versioned service or one bad field among good
/// ones is a 400 that adds nothing; an unknown layer 404; a viewer's or an editor's token 403.
@Suite struct AddToDefinitionRouteTests {
    static let admin = "/arcgis/rest/admin/services/Demo/FeatureServer"
    static let layer = "/arcgis/rest/services/Demo/FeatureServer/2?f=json"

    static func withApp(
        _ backend: DemoBackend, _ body: @Sendable (any TestClientProtocol, String, any OutpostBackend) async throws -> Void
    )
        async throws
    {
        let store = try backend.make()
        for (name, role) in [("ada", UserRole.admin), ("vic", .viewer), ("eve", .editor)] {
            try store.users.addUser(name, role: role, password: "\(name)-password", rounds: 1000)
        }
        let token = try store.users.issueToken(for: ServerUser(name: "ada", role: .admin), minutes: 30).token
        let app = Application(router: buildRouter(store: store, options: ServerOptions(requireAuth: true)))
        try await app.test(.router) { client in try await body(client, token, store) }
    }

    static func add(_ client: any TestClientProtocol, _ token: String, _ definition: String, layer: Int = 2) async throws -> JSONValue {
        try await post(client, "\(admin)/\(layer)/addToDefinition", [("f", "json"), ("token", token), ("addToDefinition", definition)])
    }

    static func fieldNames(_ client: any TestClientProtocol, _ token: String) async throws -> [String] {
        try await get(client, "\(layer)&token=\(token)")["fields"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
    }

    static func field(_ name: String, _ type: String = "esriFieldTypeString", extra: String = "") -> String {
        #"{"name":"\#(name)","type":"\#(type)","nullable":true\#(extra)}"#
    }

    @Test(arguments: DemoBackend.all)
    func anAdminAddsFieldsTheLayerThenListsAndEditsTakeThem(_ backend: DemoBackend) async throws {
        try await Self.withApp(backend) { client, token, store in
            let before = try await get(client, "\(Self.layer)&token=\(token)")["editingInfo"]?["lastEditDate"]?.int64Value ?? 0
            let fields = [
                Self.field("inspected", extra: #","alias":"Inspected","length":50"#), Self.field("visits", "esriFieldTypeInteger"),
                Self.field("rating", "esriFieldTypeDouble", extra: #","defaultValue":2.5"#), Self.field("seen", "esriFieldTypeDate"),
                Self.field("ref", "esriFieldTypeGUID"), Self.field("small", "esriFieldTypeSmallInteger"), Self.field("ratio", "esriFieldTypeSingle"),
            ]
            let answer = try await Self.add(client, token, #"{"fields":[\#(fields.joined(separator: ","))]}"#)
            #expect(answer == ["success": true], "\(answer)")
            let names = try await Self.fieldNames(client, token)
            #expect(Array(names.suffix(7)) == ["inspected", "visits", "rating", "seen", "ref", "small", "ratio"])
            let layer = try await get(client, "\(Self.layer)&token=\(token)")
            let inspected = layer["fields"]?.arrayValue?.first { $0["name"] == "inspected" }
            #expect(inspected?["alias"] == "Inspected" && inspected?["length"] == 50 && inspected?["nullable"] == true)
            #expect(layer["fields"]?.arrayValue?.first { $0["name"] == "rating" }?["defaultValue"] == 2.5)
            #expect((layer["editingInfo"]?["lastEditDate"]?.int64Value ?? 0) >= before)
            // Existing rows hold null; an edit writes the new field.
            let tree = try await get(
                client, "/arcgis/rest/services/Demo/FeatureServer/2/query?where=1%3D1&outFields=*&resultRecordCount=1&f=json&token=\(token)")
            let attributes = try #require(tree["features"]?[0]?["attributes"])
            #expect(attributes["inspected"] == .null && attributes["visits"] == .null)
            let oid = try #require(attributes["OBJECTID"]?.int64Value)
            let edit = try await post(
                client, "/arcgis/rest/services/Demo/FeatureServer/2/applyEdits",
                [("f", "json"), ("token", token), ("updates", #"[{"attributes":{"OBJECTID":\#(oid),"inspected":"yes","visits":3}}]"#)])
            #expect(edit["updateResults"]?[0]?["success"] == true, "\(edit)")
            let read = try await get(
                client, "/arcgis/rest/services/Demo/FeatureServer/2/query?objectIds=\(oid)&outFields=inspected,visits&f=json&token=\(token)")
            #expect(read["features"]?[0]?["attributes"]?["inspected"] == "yes" && read["features"]?[0]?["attributes"]?["visits"] == 3)
            #expect(try store.schema.layer(service: "Demo", id: 2).definition.field(named: "visits")?.type == .integer)
        }
    }

    @Test(arguments: DemoBackend.all)
    func refusalsAreArcGISErrorsThatAddNothing(_ backend: DemoBackend) async throws {
        try await Self.withApp(backend) { client, token, _ in
            let before = try await Self.fieldNames(client, token)
            let refused: [(String, String)] = [
                ("not JSON", "{fields:"),
                ("not an object", "[]"),
                ("no fields", #"{"fields":[]}"#),
                ("not fields", #"{"indexes":[]}"#),
                ("taken", #"{"fields":[\#(Self.field("new_one")),\#(Self.field("species"))]}"#),
                ("taken but for case", #"{"fields":[\#(Self.field("SPECIES"))]}"#),
                ("twice", #"{"fields":[\#(Self.field("twin")),\#(Self.field("Twin"))]}"#),
                ("reserved: geometry", #"{"fields":[\#(Self.field("Shape"))]}"#),
                ("reserved: tracking", #"{"fields":[\#(Self.field("outpost_gen"))]}"#),
                ("reserved: system", #"{"fields":[\#(Self.field("xmin"))]}"#),
                ("invalid name", #"{"fields":[\#(Self.field("1st"))]}"#),
                ("quote in name", #"{"fields":[\#(Self.field("a\"b"))]}"#),
                ("type", #"{"fields":[\#(Self.field("blobby", "esriFieldTypeBlob"))]}"#),
                ("unknown type", #"{"fields":[\#(Self.field("odd", "esriFieldTypeOdd"))]}"#),
                ("not nullable", #"{"fields":[{"name":"strict","type":"esriFieldTypeString","nullable":false}]}"#),
                ("bad default", #"{"fields":[\#(Self.field("count_of", "esriFieldTypeInteger", extra: #","defaultValue":"many""#))]}"#),
                ("too many", #"{"fields":[\#((0...100).map { Self.field("f\($0)") }.joined(separator: ","))]}"#),
            ]
            for (label, definition) in refused {
                let answer = try await Self.add(client, token, definition)
                #expect(answer["error"]?["code"] == 400, "\(label): \(answer)")
            }
            let missing = try await post(client, "\(Self.admin)/2/addToDefinition", [("f", "json"), ("token", token)])
            #expect(missing["error"]?["code"] == 400, "\(missing)")
            #expect(try await Self.fieldNames(client, token) == before, "nothing was added")
            let unknown = try await Self.add(client, token, #"{"fields":[\#(Self.field("somewhere"))]}"#, layer: 99)
            #expect(unknown["error"]?["code"] == 404, "\(unknown)")
            let noService = try await post(
                client, "/arcgis/rest/admin/services/Nowhere/FeatureServer/0/addToDefinition",
                [("f", "json"), ("token", token), ("addToDefinition", #"{"fields":[\#(Self.field("somewhere"))]}"#)])
            #expect(noService["error"]?["code"] == 404, "\(noService)")
            let byGet = try await get(client, "\(Self.admin)/2/addToDefinition?f=json&token=\(token)")
            #expect(byGet["error"]?["code"] == 405, "\(byGet)")
        }
    }

    @Test(arguments: DemoBackend.all)
    func onlyAnAdminsTokenIsAdmitted(_ backend: DemoBackend) async throws {
        try await Self.withApp(backend) { client, token, store in
            let definition = #"{"fields":[\#(Self.field("by_whom"))]}"#
            #expect(
                try await post(client, "\(Self.admin)/2/addToDefinition", [("f", "json"), ("addToDefinition", definition)])["error"]?["code"] == 499)
            for (name, role) in [("vic", UserRole.viewer), ("eve", .editor)] {
                let other = try store.users.issueToken(for: ServerUser(name: name, role: role), minutes: 30).token
                let answer = try await Self.add(client, other, definition)
                #expect(answer["error"]?["code"] == 403, "\(role): \(answer)")
            }
            #expect(try await !Self.fieldNames(client, token).contains("by_whom"))
        }
    }
}
