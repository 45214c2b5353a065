import Foundation
import GRDB
import OutpostPostgres
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// The catalog and feature edits on PostgreSQL (docs/postgres.md, "Layers" and "Edits"): the
/// same definitions and the same edit results as the SpatiaLite backend, stamps the change
/// feed reads, and writers side by side.
@Suite(.serialized) struct PostgresEditsTests {
    static func backend(_ database: TestDatabase, clock: any WallClock = SystemClock()) throws -> PostgresBackend {
        try PostgresBackend(database.location, maximumConnections: 10, clock: clock)
    }

    @Test func everyDemoServiceReadsBackAsSpatiaLiteKeepsIt() throws {
        let demo = try makeDemoStore()
        try TestDatabase.with { database in
            let backend = try Self.backend(database)
            let services = try demo.catalog().services.filter { !$0.definition.isVersioned }
            #expect(!services.isEmpty)
            for service in services { try backend.schema.createService(service.definition) }
            for service in services {
                let stored = try backend.schema.service(named: service.definition.name.uppercased())
                #expect(stored.definition == service.definition)
                #expect(stored.layers.map(\.tableName) == service.layers.map(\.tableName))
            }
        }
    }

    @Test func namesAreUniqueWithoutCaseAndAnotherProcessSeesEachSchemaChange() throws {
        try TestDatabase.with { database in
            let first = try Self.backend(database)
            let second = try Self.backend(database)
            #expect(try second.catalog().services.isEmpty)
            try first.schema.createService(pointLayerService(name: "Trees"))
            #expect(try second.catalog().service(named: "trees") != nil, "the other process reads the version row and reloads")
            #expect(throws: StoreError.serviceExists("Trees")) { try second.schema.createService(pointLayerService(name: "TREES")) }
            #expect(throws: StoreError.self) { try first.schema.createService(pointLayerService(name: "bad name")) }
            var versioned = pointLayerService(name: "Versioned")
            versioned.isVersioned = true
            // A versioned service has a history and version rows per layer; its delete drops them.
            try first.schema.createService(versioned)
            let companions = "SELECT count(*) FROM pg_class WHERE relname IN ('f_versioned_0__history', 'f_versioned_0__version_rows')"
            #expect(try database.pool.query(PostgresQuery(unsafeSQL: companions)).first?.int64(0) == 2)
            try second.schema.deleteService(named: "Versioned")
            #expect(try database.pool.query(PostgresQuery(unsafeSQL: companions)).first?.int64(0) == 0)
            // A name longer than PostgreSQL's identifiers is cut so that every table named after a layer fits.
            let long = try first.schema.createService(pointLayerService(name: String(repeating: "x", count: 100)))
            #expect(long.layers[0].tableName.utf8.count + "__version_rows_key".utf8.count <= 63)
            // a-b and a_b share a table prefix: the second is numbered.
            try first.schema.createService(pointLayerService(name: "a-b"))
            let numbered = try second.schema.createService(pointLayerService(name: "a_b"))
            #expect(numbered.layers.first?.tableName == "f_a_b_2_0")
            // An edit is the first thing the other process does after a change: the version read
            // as its transaction starts finds its catalog old.
            try first.schema.createService(pointLayerService(name: "Later"))
            let add = LayerEdits(layerId: 0, adds: [EditFeature(attributes: ["label": .string("x")], geometry: ["x": .double(1), "y": .double(2)])])
            #expect(try second.edits.applyEdits(service: "Later", edits: [add], options: EditOptions()).layers[0].addResults[0].success)
            try second.schema.deleteService(named: "Later")
            #expect(throws: StoreError.self) { try first.edits.applyEdits(service: "Later", edits: [add], options: EditOptions()) }
            try second.schema.deleteService(named: "trees")
            #expect(try first.catalog().service(named: "Trees") == nil)
            let tables = try database.pool.query("SELECT count(*) FROM pg_class WHERE relname LIKE 'f_trees%'").first?.int64(0)
            #expect(tables == 0, "its tables and indexes went with it")
        }
    }

    /// One script of edits through both backends: the same results, edit by edit.
    @Test(arguments: [true, false]) func editsAnswerAsOnSpatiaLite(rollbackOnFailure: Bool) throws {
        let gid = { (n: Int) in "{00000000-0000-0000-0000-\(String(format: "%012d", n))}" }
        func point(_ label: String, value: Int? = 1, id: Int? = nil, objectId: Int64? = nil) -> EditFeature {
            var attributes: JSONObject = ["label": .string(label)]
            if let value { attributes["value"] = .int(Int64(value)) }
            if let id { attributes["GlobalID"] = .string(gid(id)) }
            if let objectId { attributes["OBJECTID"] = .int(objectId) }
            return EditFeature(attributes: attributes, geometry: ["x": .double(10), "y": .double(20)])
        }
        let script: [(LayerEdits, EditOptions)] = [
            (LayerEdits(layerId: 0, adds: [point("a", id: 1), point("b", id: 2), point("c", id: 3)]), EditOptions()),
            (
                LayerEdits(
                    layerId: 0, adds: [point("dup", id: 1), point("d", id: 4)], updates: [point("a2", objectId: 1), point("x", objectId: 99)],
                    deletes: [.objectId(2)]), EditOptions(rollbackOnFailure: rollbackOnFailure)
            ),
            (LayerEdits(layerId: 0, updates: [point("c2", value: nil, id: 3)], deletes: [.globalId(gid(3))]), EditOptions(useGlobalIds: true)),
            (
                LayerEdits(
                    layerId: 0,
                    adds: [
                        EditFeature(
                            attributes: ["label": .string("far")],
                            geometry: ["x": .double(1_113_194.9), "y": .double(0), "spatialReference": ["wkid": 3857]]),
                        EditFeature(attributes: ["label": .string(String(repeating: "z", count: 30))]), EditFeature(attributes: ["nope": .int(1)]),
                    ]), EditOptions(rollbackOnFailure: false)
            ),
        ]
        let spatiaLite = try makeTemporaryStore()
        try spatiaLite.schema.createService(pointLayerService(name: "Points"))
        try TestDatabase.with { database in
            let backend = try Self.backend(database)
            try backend.schema.createService(pointLayerService(name: "Points"))
            for (edits, options) in script {
                let expected = try spatiaLite.edits.applyEdits(service: "Points", edits: [edits], options: options).layers
                let got = try backend.edits.applyEdits(service: "Points", edits: [edits], options: options).layers
                // ObjectIDs of adds may differ: a PostgreSQL sequence does not give back numbers
                // taken by failed or rolled-back adds (docs/decisions.md, "ObjectIDs on PostgreSQL").
                func shape(_ results: [LayerEditResults]) -> [String] {
                    results.flatMap { layer in
                        layer.addResults.map {
                            "add \($0.globalId.map { $0.hasPrefix("{00000000-") ? $0 : "made" } ?? "-") \($0.success) \($0.error?.code ?? 0)"
                        }
                            + (layer.updateResults + layer.deleteResults).map {
                                "\($0.objectId.map(String.init) ?? "-") \($0.success) \($0.error?.code ?? 0)"
                            }
                    }
                }
                #expect(shape(got) == shape(expected))
                #expect(got.flatMap(\.all).map(\.error?.description) == expected.flatMap(\.all).map(\.error?.description))
            }
            let rows = try database.pool.query(
                "SELECT \"OBJECTID\", label, ST_X(shape), ST_Y(shape) FROM f_points_0 ORDER BY \"OBJECTID\""
            ).rows
            let spatiaLiteRows = try spatiaLite.read { db in
                try Row.fetchAll(db, sql: "SELECT OBJECTID, label FROM f_points_0 ORDER BY OBJECTID").map { "\($0[0] as Int64) \($0[1] as String)" }
            }
            #expect(rows.map { $0.string(1) ?? "" } == spatiaLiteRows.map { String($0.split(separator: " ")[1]) })
            let far = try #require(rows.first { $0.string(1) == "far" })
            #expect(abs((try far.double(2) ?? 0) - 10) < 1e-6, "a point sent in Web Mercator is stored in the layer's WGS 84")
        }
    }
}
