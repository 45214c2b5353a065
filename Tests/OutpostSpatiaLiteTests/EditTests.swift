import Foundation
import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostSpatiaLite

/// One row as plain values (GRDB rows are not Sendable, so they stay inside the read).
func fetchRow(_ store: SpatiaLiteBackend, _ sql: String, _ arguments: [DatabaseValue] = []) throws -> [DatabaseValue]? {
    try store.read { db in try Row.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)).map { Array($0.databaseValues) } }
}

func fetchRows(_ store: SpatiaLiteBackend, _ sql: String) throws -> [[DatabaseValue]] {
    try store.read { db in try Row.fetchAll(db, sql: sql).map { Array($0.databaseValues) } }
}

extension DatabaseValue {
    var int: Int64? { Int64.fromDatabaseValue(self) }
    var text: String? { String.fromDatabaseValue(self) }
    var real: Double? { Double.fromDatabaseValue(self) }
}

func feature(_ attributes: JSONObject, x: Double? = nil, y: Double? = nil) -> EditFeature {
    EditFeature(attributes: attributes, geometry: x.map { ["x": .double($0), "y": .double(y ?? 0)] })
}

@Suite struct EditTests {
    @Test func addsAssignIDsKeepGivenGlobalIDsAndFillEditorTracking() throws {
        let store = try makeDemoStore()
        let before = try store.edits.currentGeneration()
        let outcome = try store.edits.applyEdits(
            service: "Demo",
            edits: [
                LayerEdits(
                    layerId: 0,
                    adds: [
                        feature(["name": "Outpost Camp", "rank": 1000], x: 10, y: 50),
                        feature(["name": "Given", "GlobalID": "8a7f2c1e-0b3d-4e5f-9a6b-7c8d9e0f1a2b", "OBJECTID": 99999], x: 11, y: 51),
                    ])
            ], options: EditOptions(), context: EditContext(editor: "alice"))
        let results = outcome.layers[0].addResults
        #expect(results.allSatisfy { $0.success })
        #expect(results[1].globalId == "{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}")
        #expect(results[1].objectId != 99999, "OBJECTIDs are always the server's")
        #expect(outcome.generation == before + 1)
        let row = try #require(
            try fetchRow(
                store, "SELECT Creator, Editor, CreationDate, outpost_created_gen, outpost_gen FROM f_demo_0 WHERE OBJECTID = ?",
                [results[0].objectId!.databaseValue]))
        #expect(row[0].text == "alice" && row[1].text == "alice")
        #expect(row[2].int == outcome.editMoment)
        #expect(row[3].int == outcome.generation && row[4].int == outcome.generation)
    }

    @Test func updatesByObjectIdAndByGlobalId() throws {
        let store = try makeDemoStore()
        let first = try store.edits.applyEdits(
            service: "Demo",
            edits: [
                LayerEdits(
                    layerId: 2,
                    updates: [
                        feature(["OBJECTID": 1, "species": "Ginkgo biloba"], x: 13.3, y: 52.5)
                    ])
            ], options: EditOptions())
        #expect(first.layers[0].updateResults[0].success)
        let globalId = try #require(first.layers[0].updateResults[0].globalId)
        let second = try store.edits.applyEdits(
            service: "Demo",
            edits: [
                LayerEdits(
                    layerId: 2,
                    updates: [
                        feature(["GlobalID": .string(globalId.lowercased()), "height_m": 12.5])
                    ])
            ], options: EditOptions(useGlobalIds: true))
        #expect(second.layers[0].updateResults[0].objectId == 1)
        let row = try #require(
            try fetchRow(store, "SELECT species, height_m, ST_X(shape), outpost_created_gen, outpost_gen FROM f_demo_2 WHERE OBJECTID = 1"))
        #expect(row[0].text == "Ginkgo biloba" && row[1].real == 12.5 && row[2].real == 13.3)
        #expect(row[3].int! < row[4].int!, "an update keeps the creation generation")
        #expect(row[4].int == second.generation)
    }

    @Test func deletesLeaveTombstonesAndTakeAttachmentsAlong() throws {
        let store = try makeDemoStore()
        let outcome = try store.edits.applyEdits(
            service: "Demo", edits: [LayerEdits(layerId: 0, deletes: [.objectId(1)])],
            options: EditOptions(), context: EditContext(replicaId: "{R}"))
        let result = outcome.layers[0].deleteResults[0]
        #expect(result.success && result.objectId == 1)
        let tombstones = try fetchRows(
            store, "SELECT kind, global_id, parent_global_id, generation, replica_id FROM outpost_tombstones ORDER BY kind DESC")
        #expect(tombstones.map { $0[0].text } == ["feature", "attachment"])
        #expect(tombstones[0][1].text == result.globalId && tombstones[1][2].text == result.globalId)
        #expect(tombstones.allSatisfy { $0[3].int == outcome.generation && $0[4].text == "{R}" })
        #expect(try store.features.count(service: "Demo", layer: 0) == 242)
        let attachments = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM f_demo_0__attach") }
        #expect(attachments == 4)
    }

    /// Each validation error, as a per-edit error that names the problem.
    @Test(
        arguments: [
            (feature(["nope": 1], x: 1, y: 1), "Field 'nope' does not exist in Cities."),
            (feature(["rank": "high"], x: 1, y: 1), "Field 'rank' expects an integer, got a string."),
            (feature(["rank": 1.5], x: 1, y: 1), "Field 'rank' expects an integer, got a number."),
            (feature(["name": .string(String(repeating: "x", count: 81))], x: 1, y: 1), "Field 'name' is longer than 80 characters."),
            (feature(["rank": 3_000_000_000], x: 1, y: 1), "Field 'rank' value 3000000000 is out of range for an integer."),
            (
                EditFeature(attributes: ["name": "x"], geometry: ["paths": [[[0, 0], [1, 1]]]]),
                "Invalid geometry: a polyline does not fit a point layer"
            ),
            (EditFeature(attributes: ["name": "x"], geometry: ["x": "east", "y": 1]), "Invalid geometry: 'x' must be a number"),
            (EditFeature(attributes: ["name": "x"], geometry: ["x": 1, "y": 2, "spatialReference": ["wkid": 999999]]), nil),
            (feature(["GlobalID": "not-a-guid"], x: 1, y: 1), "'\"not-a-guid\"' is not a GlobalID."),
        ] as [(EditFeature, String?)])
    func rejectsInvalidAdds(_ edit: EditFeature, _ message: String?) throws {
        let store = try makeDemoStore()
        let outcome = try store.edits.applyEdits(service: "Demo", edits: [LayerEdits(layerId: 0, adds: [edit])], options: EditOptions())
        let result = outcome.layers[0].addResults[0]
        #expect(!result.success)
        #expect(result.error?.code == 1000)
        if let message { #expect(result.error?.description == message) }
        #expect(outcome.generation == nil)
        #expect(try store.features.count(service: "Demo", layer: 0) == 243, "nothing half-written")
    }

    @Test func requiredFieldsAreEnforced() throws {
        let store = try makeTemporaryStore()
        var service = pointLayerService(name: "req")
        service.layers[0].fields.append(FieldDefinition(name: "code", type: .string, nullable: false))
        try store.schema.createService(service)
        let outcome = try store.edits.applyEdits(
            service: "req",
            edits: [
                LayerEdits(
                    layerId: 0,
                    adds: [
                        feature(["label": "a"], x: 1, y: 1), feature(["code": "C1"], x: 1, y: 1),
                    ])
            ], options: EditOptions(rollbackOnFailure: false))
        #expect(outcome.layers[0].addResults.map(\.success) == [false, true])
        #expect(outcome.layers[0].addResults[0].error?.description == "Field 'code' is required.")
    }

    @Test func rollbackOnFailureTrueIsAllOrNothing() throws {
        let store = try makeDemoStore()
        let generation = try store.edits.currentGeneration()
        let outcome = try store.edits.applyEdits(
            service: "Demo",
            edits: [
                LayerEdits(
                    layerId: 2,
                    adds: [feature(["species": "Quercus"], x: 13.3, y: 52.5)],
                    updates: [feature(["OBJECTID": 2, "species": "Acer"])],
                    deletes: [.objectId(3), .objectId(987_654)])
            ], options: EditOptions(rollbackOnFailure: true))
        let results = outcome.layers[0]
        #expect(results.all.allSatisfy { !$0.success })
        #expect(results.deleteResults[1].error?.code == 1019)
        #expect(results.addResults[0].error == .rolledBack && results.deleteResults[0].error == .rolledBack)
        #expect(try store.features.count(service: "Demo", layer: 2) == 2500)
        #expect(try store.edits.currentGeneration() == generation, "a rolled-back request allocates no generation")
        let species = try store.read { db in try String.fetchOne(db, sql: "SELECT species FROM f_demo_2 WHERE OBJECTID = 2") }
        #expect(species != "Acer")
    }

    @Test func rollbackOnFailureFalseKeepsTheGoodEdits() throws {
        let store = try makeDemoStore()
        let outcome = try store.edits.applyEdits(
            service: "Demo",
            edits: [
                LayerEdits(
                    layerId: 2,
                    adds: [feature(["species": "Quercus"], x: 13.3, y: 52.5), feature(["species": 7], x: 13.3, y: 52.5)],
                    deletes: [.objectId(3), .objectId(987_654)])
            ], options: EditOptions(rollbackOnFailure: false))
        #expect(outcome.layers[0].addResults.map(\.success) == [true, false])
        #expect(outcome.layers[0].deleteResults.map(\.success) == [true, false])
        #expect(outcome.layers[0].deleteResults[1].error == .missing("OBJECTID 987654"))
        #expect(try store.features.count(service: "Demo", layer: 2) == 2500)
        #expect(outcome.generation != nil)
    }

    @Test func duplicateGlobalIDsAreRefused() throws {
        let store = try makeDemoStore()
        let existing = try #require(try store.read { db in try String.fetchOne(db, sql: "SELECT GlobalID FROM f_demo_2 WHERE OBJECTID = 1") })
        let outcome = try store.edits.applyEdits(
            service: "Demo",
            edits: [
                LayerEdits(
                    layerId: 2,
                    adds: [
                        feature(["GlobalID": .string(existing)], x: 13.3, y: 52.5)
                    ])
            ], options: EditOptions(rollbackOnFailure: false))
        #expect(outcome.layers[0].addResults[0].error == .duplicateGlobalID(existing))
    }

    @Test func geometryInAnotherSpatialReferenceIsProjected() throws {
        let store = try makeDemoStore()
        let outcome = try store.edits.applyEdits(
            service: "Demo",
            edits: [
                LayerEdits(
                    layerId: 0,
                    adds: [
                        EditFeature(
                            attributes: ["name": "Berlin (3857)"],
                            geometry: ["x": 1_492_237.774084, "y": 6_894_699.801282, "spatialReference": ["wkid": 102100]])
                    ])
            ], options: EditOptions())
        let id = try #require(outcome.layers[0].addResults[0].objectId)
        let point = try #require(try fetchRow(store, "SELECT ST_X(shape), ST_Y(shape) FROM f_demo_0 WHERE OBJECTID = ?", [id.databaseValue]))
        #expect(abs(point[0].real! - 13.405) < 1e-6 && abs(point[1].real! - 52.52) < 1e-6)
    }

    @Test func deleteByWhereRunsInsideTheEdit() throws {
        let store = try makeDemoStore()
        var query = LayerQuery()
        query.whereClause = "species = 'Betula pendula'"
        var edits = LayerEdits(layerId: 2)
        edits.deleteQuery = query
        let expected = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM f_demo_2 WHERE species = 'Betula pendula'") } ?? 0
        let outcome = try store.edits.applyEdits(service: "Demo", edits: [edits], options: EditOptions())
        #expect(expected > 0 && outcome.layers[0].deleteResults.count == expected)
        #expect(try store.features.count(service: "Demo", layer: 2) == 2500 - expected)
    }

    @Test func capabilitiesAndLayersAreRequestErrors() throws {
        let store = try makeTemporaryStore()
        var readOnly = pointLayerService(name: "ro")
        readOnly.capabilities = ["Query", "Sync"]
        try store.schema.createService(readOnly)
        #expect(throws: ArcGISError.self) {
            try store.edits.applyEdits(service: "ro", edits: [LayerEdits(layerId: 0, adds: [feature([:], x: 1, y: 1)])], options: EditOptions())
        }
        #expect(throws: StoreError.layerNotFound(service: "ro", layer: 5)) {
            try store.edits.applyEdits(service: "ro", edits: [LayerEdits(layerId: 5)], options: EditOptions())
        }
    }

    @Test func generationsIncreaseAcrossEveryWritePath() throws {
        let store = try makeDemoStore()
        let g0 = try store.edits.currentGeneration()
        try store.edits.insert([FeatureRow(attributes: [:], geometry: .point(Point(x: 13.4, y: 52.5)))], service: "Demo", layer: 2)
        let g1 = try store.edits.currentGeneration()
        let edit = try store.edits.applyEdits(service: "Demo", edits: [LayerEdits(layerId: 2, deletes: [.objectId(1)])], options: EditOptions())
        #expect(g1 == g0 + 1 && edit.generation == g1 + 1)
    }
}

@Suite struct MigrationTests {
    @Test func v2AddsChangeTrackingToTablesCreatedBeforeIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-v1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("outpost.sqlite").path
        // A database as the v1 schema left it: catalog rows and a layer table without tracking columns.
        var configuration = Configuration()
        configuration.prepareDatabase { db in try SpatiaLite.attach(to: db.sqliteConnection!) }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try SpatiaLiteBackend.migrator.migrate(queue, upTo: "v1-catalog")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO outpost_services VALUES ('Old', '', 0, 'Query,Delete', 4326, 1000, 0);
                    INSERT INTO outpost_layers VALUES ('Old', 0, 'T', 'Table', '', NULL, 4326, 'OBJECTID', 'GlobalID', 'OBJECTID', 0, 1000, 'f_old_0', NULL, 0);
                    INSERT INTO outpost_fields VALUES ('Old', 0, 0, 'OBJECTID', 'esriFieldTypeOID', 'OBJECTID', NULL, 0, 0, 'null', 'null');
                    INSERT INTO outpost_fields VALUES ('Old', 0, 1, 'GlobalID', 'esriFieldTypeGlobalID', 'GlobalID', 38, 0, 0, 'null', 'null');
                    CREATE TABLE f_old_0 (OBJECTID INTEGER PRIMARY KEY AUTOINCREMENT, GlobalID TEXT NOT NULL);
                    INSERT INTO f_old_0(GlobalID) VALUES ('{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}');
                    """)
        }
        let store = try SpatiaLiteBackend(path: path)
        let columns = try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('f_old_0')") }
        #expect(columns.contains("outpost_gen") && columns.contains("outpost_created_gen") && columns.contains("outpost_replica"))
        let outcome = try store.edits.applyEdits(service: "Old", edits: [LayerEdits(layerId: 0, deletes: [.objectId(1)])], options: EditOptions())
        #expect(outcome.layers[0].deleteResults[0].success)
    }
}

@Suite struct OrphanFileTests {
    /// A process killed between writing an attachment's file and committing its row leaves
    /// the file behind; the next start removes it and keeps every file a row names.
    @Test func theStartUpSweepRemovesFilesNoCommittedRowNames() throws {
        let store = try makeDemoStore()
        let parent = try #require(try store.read { db in try String.fetchOne(db, sql: "SELECT GlobalID FROM f_demo_0 WHERE OBJECTID = 1") })
        let added = try store.edits.applyEdits(
            service: "Demo",
            edits: [
                LayerEdits(
                    layerId: 0,
                    attachments: AttachmentEdits(adds: [
                        AttachmentEdit(
                            globalId: "{6A0F3B5E-2C1D-4E7F-8A9B-0C1D2E3F4A5B}", parentGlobalId: parent, name: "kept.txt",
                            contentType: "text/plain", source: .data(Array("kept".utf8)))
                    ]))
            ], options: EditOptions(useGlobalIds: true))
        #expect(added.layers[0].attachmentResults?.adds.first?.success == true)
        let kept = try FileManager.default.contentsOfDirectory(atPath: store.attachmentsDirectory)
        #expect(kept.count == 1)
        _ = FileManager.default.createFile(atPath: store.attachmentsDirectory + "/orphan.bin", contents: Data("never committed".utf8))
        try FileManager.default.createDirectory(atPath: store.temporaryDirectory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: store.temporaryDirectory + "/upload-cut", contents: Data("half a body".utf8))
        // A portal item deleted just before a crash: its row gone, its folder left.
        let keptItem = try #require(try store.portal.items().first)
        _ = try store.portal.addResource(item: keptItem.id, name: "kept.txt", data: .bytes([1]))
        try FileManager.default.createDirectory(
            atPath: store.directory + "/items/" + PortalNames.newId() + "/data", withIntermediateDirectories: true)

        let sweep = try SpatiaLiteBackend(dataDirectory: store.directory).maintenance.removeOrphanFiles()
        #expect(sweep == OrphanFileSweep(attachmentFiles: 1, temporaryFiles: 1, itemFolders: 1))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory + "/items") == [keptItem.id])
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.attachmentsDirectory) == kept)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.temporaryDirectory).isEmpty)
    }
}
