import Foundation
import GRDB
import OutpostDataTools
import OutpostGeometry
import OutpostSQLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostSpatiaLite

@Suite struct SpatiaLiteBackendTests {
    @Test func createsTablesWithSpatialIndexAndUniqueGlobalIDs() throws {
        let store = try makeTemporaryStore()
        try store.schema.createService(pointLayerService(name: "s1"))
        let layer = try store.layer(service: "S1", id: 0)  // names are case-insensitive
        let facts = try store.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT spatial_index_enabled FROM geometry_columns WHERE f_table_name = ?", arguments: [layer.tableName]),
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Bool.fetchOne(db, sql: "SELECT \"unique\" FROM pragma_index_list(?) WHERE name LIKE '%globalid'", arguments: [layer.tableName])
            )
        }
        // Asked of the connection that commits: GRDB sets `synchronous = NORMAL` on the writer
        // when it turns WAL on, after the configuration's own pragmas, and readers never commit.
        let synchronous = try store.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(facts.0 == 1)
        #expect(facts.1 == "wal" && synchronous == 2, "WAL with an fsync per commit")
        #expect(facts.2 == true)
        try store.edits.insert(
            [FeatureRow(attributes: ["GlobalID": "{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}"], geometry: .point(Point(x: 1, y: 1)))],
            service: "s1", layer: 0)
        #expect(throws: (any Error).self) {
            try store.edits.insert(
                [FeatureRow(attributes: ["GlobalID": "8a7f2c1e-0b3d-4e5f-9a6b-7c8d9e0f1a2b"], geometry: .point(Point(x: 2, y: 2)))],
                service: "s1", layer: 0)
        }
    }

    @Test func catalogSurvivesReopeningAndMigrationsRunOnce() throws {
        let store = try makeTemporaryStore()
        try DemoData.seed(store, testdataDirectory: testdataDirectory)
        let reopened = try SpatiaLiteBackend(path: store.path)
        #expect(try reopened.catalog() == store.catalog())
        let migrations = try reopened.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(
            migrations == [
                "v1-spatial-metadata", "v1-catalog", "v2-change-tracking", "v3-attachment-files-and-uploads", "v4-lean-spatial-triggers",
                "v5-replicas-and-jobs",
                "v6-sync-conflicts-and-receipts", "v7-change-index-with-writer", "v8-versions-history-and-conflict-fields",
                "v9-named-versions", "v10-history-by-objectid", "v11-users-and-tokens", "v12-owners-and-registration-lineage", "v13-portal-items",
                "v14-tile-sets", "v15-job-progress-and-output", "v16-layer-subtypes", "v17-store-identity", "v18-upload-owners",
                "v19-oauth", "v20-api-keys", "v21-store-flags", "v22-locators", "v23-networks",
                "v24-settings",
            ])
        // Versioned layers carry their history and version-row tables; DEFAULT exists.
        let tables = try reopened.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'f_parcels_0__%'")
        }
        #expect(Set(tables) == ["f_parcels_0__history", "f_parcels_0__version_rows", "f_parcels_0__attach"])
        #expect(try reopened.versions.versions(service: "Parcels").map(\.name) == [SpatiaLiteBackend.defaultVersionName])
        // The change index covers the writer (v7), and replaced the generation-only one.
        let indexes = try reopened.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%outpost%'")
        }
        #expect(indexes.filter { $0.hasSuffix("_outpost_changes") }.count >= 4)
        #expect(!indexes.contains { $0.hasSuffix("_outpost_gen") })
        let demo = try reopened.service(named: "Demo")
        #expect(demo.layers.map(\.definition.name) == ["Cities", "Countries", "Trees", "Inspections"])
        #expect(demo.layers[3].definition.kind == .table)
        #expect(demo.layers[0].definition.relationships.first?.relatedTableId == 3)
        #expect(try reopened.service(named: "Parcels").definition.isVersioned)
    }

    @Test func rejectsInvalidSchemas() throws {
        let store = try makeTemporaryStore()
        #expect(throws: StoreError.self) { try store.schema.createService(pointLayerService(name: "bad name")) }
        var duplicate = pointLayerService(name: "dup")
        duplicate.layers[0].fields.append(FieldDefinition(name: "LABEL", type: .string))
        #expect(throws: StoreError.self) { try store.schema.createService(duplicate) }
        var noOID = pointLayerService(name: "nooid")
        noOID.layers[0].fields.removeFirst()
        #expect(throws: StoreError.self) { try store.schema.createService(noOID) }
        try store.schema.createService(pointLayerService(name: "taken"))
        // Names match case-insensitively, so the error names the service already there.
        #expect(throws: StoreError.serviceExists("taken")) { try store.schema.createService(pointLayerService(name: "Taken")) }
    }

    @Test func servicesLiveInOneLevelOfFoldersAndTheirTablesNeverClash() throws {
        let store = try makeTemporaryStore()
        for name in ["a/b/c", "/a", "a/", "Field/FeatureServer", "Field/replicafiles", "Field/versionmanagementserver", "Fi eld/b", "FeatureServer"] {
            #expect(throws: StoreError.self, "\(name)") { try store.schema.createService(pointLayerService(name: name)) }
        }
        let inFolder = try store.schema.createService(pointLayerService(name: "Field/Water-Mains"))
        #expect(inFolder.definition.folder == "Field" && inFolder.definition.nameInFolder == "Water-Mains")
        // `Field__Water_Mains` and `Field/Water-Mains` map to the same table name; the second is numbered.
        let lookalike = try store.schema.createService(pointLayerService(name: "Field__Water_Mains"))
        let root = try store.schema.createService(pointLayerService(name: "Water-Mains"))
        let tables = [inFolder, lookalike, root].map { $0.layers[0].tableName }
        #expect(tables == ["f_field__water_mains_0", "f_field__water_mains_2_0", "f_water_mains_0"])
        #expect(throws: StoreError.serviceExists("Field/Water-Mains")) {
            try store.schema.createService(pointLayerService(name: "field/water-mains"))
        }
        _ = try store.edits.insert(
            [FeatureRow(attributes: ["label": .string("in folder")], geometry: .point(Point(x: 1, y: 2)))], service: "Field/Water-Mains", layer: 0)
        #expect(try store.features.count(service: "field/water-mains", layer: 0) == 1)
        #expect(try store.features.count(service: "Field__Water_Mains", layer: 0) == 0)
        #expect(try store.features.count(service: "Water-Mains", layer: 0) == 0)
    }

    @Test func bulkLoadedRTreeIsValidAndAnswersLikeAScan() throws {
        let store = try makeTemporaryStore()
        try store.schema.createService(pointLayerService(name: "bulk"))
        var random = SeededGenerator(seed: 42)
        let rows = (0..<20_000).map { i in
            FeatureRow(
                attributes: ["label": .string("p\(i)"), "value": .int(Int64(i))],
                geometry: .point(Point(x: random.nextDouble() * 360 - 180, y: random.nextDouble() * 170 - 85)))
        }
        let ids = try store.edits.insert(rows, service: "bulk", layer: 0)
        #expect(ids.count == 20_000)
        let layer = try store.layer(service: "bulk", id: 0)
        let check = try store.read { db in try String.fetchOne(db, sql: "SELECT rtreecheck(?)", arguments: [layer.spatialIndexTable]) }
        #expect(check == "ok")
        // The triggers are back: a later insert reaches the index.
        try store.edits.insert([FeatureRow(attributes: [:], geometry: .point(Point(x: 100.5, y: 10.5)))], service: "bulk", layer: 0)
        var query = LayerQuery()
        query.geometry = QueryGeometry(text: "100,10,101,11", geometryType: .envelope, inSR: nil)
        query.returnIdsOnly = true
        guard case .objectIds(let hits) = try store.features.query(query, service: "bulk", layer: 0) else {
            Issue.record("no ids")
            return
        }
        let expected = try store.read { db in
            try Int64.fetchAll(
                db,
                sql:
                    "SELECT OBJECTID FROM \(layer.tableName) WHERE ST_X(shape) BETWEEN 100 AND 101 AND ST_Y(shape) BETWEEN 10 AND 11 ORDER BY OBJECTID"
            )
        }
        #expect(hits == expected)
        #expect(hits.contains(20_001))
        let extent = try store.features.extent(of: layer)
        #expect(extent.xmin >= -180 && extent.xmax <= 180 && extent.xmin < -179)
    }

    @Test func aBulkLoadWithDuplicateGlobalIDsChangesNothing() throws {
        let store = try makeTemporaryStore()
        try store.schema.createService(pointLayerService(name: "dups"))
        let layer = try store.layer(service: "dups", id: 0)
        let schemaBefore = try store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE tbl_name = ? ORDER BY name", arguments: [layer.tableName])
        }
        var rows = (0..<200).map { FeatureRow(attributes: ["value": .int(Int64($0))], geometry: .point(Point(x: Double($0), y: 1))) }
        rows[10].attributes["GlobalID"] = "{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}"
        rows[150].attributes["GlobalID"] = "{8a7f2c1e-0b3d-4e5f-9a6b-7c8d9e0f1a2b}"
        #expect(throws: (any Error).self) { try store.edits.insert(rows, service: "dups", layer: 0) }
        #expect(try store.features.count(service: "dups", layer: 0) == 0)
        let schemaAfter = try store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE tbl_name = ? ORDER BY name", arguments: [layer.tableName])
        }
        #expect(schemaAfter == schemaBefore, "triggers and indexes are back")
        #expect(schemaAfter.contains { $0.hasSuffix("_globalid") } && schemaAfter.contains("gii_\(layer.tableName)_shape"))
    }

    @Test func spatialIndexFollowsInsertsUpdatesAndDeletes() throws {
        let store = try makeTemporaryStore()
        try store.schema.createService(pointLayerService(name: "moves"))
        let layer = try store.layer(service: "moves", id: 0)
        let add = try store.edits.applyEdits(
            service: "moves",
            edits: [
                LayerEdits(
                    layerId: 0,
                    adds: [
                        EditFeature(attributes: [:], geometry: ["x": 1, "y": 1]), EditFeature(attributes: [:], geometry: ["x": 2, "y": 2]),
                        EditFeature(attributes: [:]),
                    ])
            ], options: EditOptions())
        let ids = add.layers[0].addResults.compactMap(\.objectId)
        let moved = try store.edits.applyEdits(
            service: "moves",
            edits: [
                LayerEdits(
                    layerId: 0,
                    updates: [EditFeature(attributes: ["OBJECTID": .int(ids[0])], geometry: ["x": 50, "y": 50])], deletes: [.objectId(ids[1])])
            ],
            options: EditOptions())
        #expect(moved.layers[0].all.allSatisfy { $0.success }, "\(moved.layers[0].all.compactMap(\.error))")
        func hits(_ box: String) throws -> [Int64] {
            var query = LayerQuery()
            query.geometry = QueryGeometry(text: box, geometryType: .envelope, inSR: nil)
            query.returnIdsOnly = true
            guard case .objectIds(let found) = try store.features.query(query, service: "moves", layer: 0) else { return [] }
            return found
        }
        #expect(try hits("0,0,3,3") == [])
        let far = try hits("49,49,51,51")
        // The feature without geometry never matches a spatial filter (SpatiaLite answers -1 for NULL).
        #expect(far == [ids[0]])
        let facts = try store.read { db in
            (
                try String.fetchOne(db, sql: "SELECT rtreecheck(?)", arguments: [layer.spatialIndexTable]),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(layer.spatialIndexTable)"),
                try Int.fetchOne(db, sql: "SELECT spatial_index_enabled FROM geometry_columns WHERE f_table_name = ?", arguments: [layer.tableName])
            )
        }
        #expect(facts.0 == "ok" && facts.1 == 1 && facts.2 == 1)
    }

    @Test func pagesAreCappedAndIDsAreNot() throws {
        let store = try makeTemporaryStore()
        try store.schema.createService(pointLayerService(name: "paging", maxRecordCount: 100))
        try store.edits.insert(
            (0..<250).map { FeatureRow(attributes: ["value": .int(Int64($0))], geometry: .point(Point(x: Double($0) / 10, y: 0))) },
            service: "paging", layer: 0)
        var query = LayerQuery()
        query.whereClause = "1=1"
        guard case .features(let first) = try store.features.query(query, service: "paging", layer: 0) else {
            Issue.record("no page")
            return
        }
        #expect(first.features.count == 100 && first.exceededTransferLimit)
        query.resultOffset = 200
        query.resultRecordCount = 500
        guard case .features(let last) = try store.features.query(query, service: "paging", layer: 0) else {
            Issue.record("no page")
            return
        }
        #expect(last.features.count == 50 && !last.exceededTransferLimit)
        var ids = LayerQuery()
        ids.returnIdsOnly = true
        guard case .objectIds(let all) = try store.features.query(ids, service: "paging", layer: 0) else {
            Issue.record("no ids")
            return
        }
        #expect(all.count == 250)
    }

    @Test func whereOrderAndStatisticsOnRealData() throws {
        let store = try makeTemporaryStore()
        try DemoData.seed(store, testdataDirectory: testdataDirectory)
        var query = LayerQuery()
        query.whereClause = "continent = 'Europe' AND pop_est > 80000000"
        query.outFields = ["name"]
        query.orderBy = [("pop_est", false)]
        query.returnGeometry = false
        guard case .features(let page) = try store.features.query(query, service: "Demo", layer: 1) else {
            Issue.record("no page")
            return
        }
        #expect(page.features.map { $0.attributes[1] } == ["Russia", "Germany"])
        var stats = LayerQuery()
        stats.outStatistics = [
            OutStatistic(kind: .min, field: "OBJECTID", outName: "lo"), OutStatistic(kind: .max, field: "OBJECTID", outName: "hi"),
            OutStatistic(kind: .count, field: "OBJECTID", outName: "n"),
        ]
        guard case .statistics(_, let rows, _) = try store.features.query(stats, service: "Demo", layer: 2) else {
            Issue.record("no stats")
            return
        }
        #expect(rows == [[.int(1), .int(2500), .int(2500)]])
    }

    @Test func spatialRelationshipsFollowEsriDefinitions() throws {
        let store = try makeTemporaryStore()
        try DemoData.seed(store, testdataDirectory: testdataDirectory)
        func names(_ geometry: String, _ type: EsriGeometryType, _ relationship: SpatialRelationship) throws -> [String] {
            var query = LayerQuery()
            query.geometry = QueryGeometry(text: geometry, geometryType: type, inSR: nil)
            query.spatialRelationship = relationship
            query.outFields = ["name"]
            query.returnGeometry = false
            guard case .features(let page) = try store.features.query(query, service: "Demo", layer: 1) else { return [] }
            return page.features.compactMap { $0.attributes[1].stringValue }.sorted()
        }
        // A point in Berlin intersects Germany; Germany contains it, so it is "within" Germany.
        #expect(try names("13.4,52.5", .point, .intersects) == ["Germany"])
        #expect(try names("13.4,52.5", .point, .within) == ["Germany"])
        #expect(try names("13.4,52.5", .point, .contains) == [])
        // A box around Luxembourg contains it (query contains feature) and intersects its neighbours.
        let box = "5.6,49.4,6.6,50.3"
        #expect(try names(box, .envelope, .contains) == ["Luxembourg"])
        #expect(try names(box, .envelope, .intersects).contains("Belgium"))
    }

    @Test func polygonQueryGeometryMatchesAPointInPolygonOracle() throws {
        let store = try makeTemporaryStore()
        try DemoData.seed(store, testdataDirectory: testdataDirectory)
        // A clockwise (Esri outer) triangle over part of the generated trees.
        let triangle = [Point(x: 13.25, y: 52.42), Point(x: 13.4, y: 52.58), Point(x: 13.55, y: 52.42), Point(x: 13.25, y: 52.42)]
        let esri = #"{"rings":[[[13.25,52.42],[13.4,52.58],[13.55,52.42],[13.25,52.42]]],"spatialReference":{"wkid":4326}}"#
        var spatial = LayerQuery()
        spatial.geometry = QueryGeometry(text: esri, geometryType: .polygon, inSR: nil)
        spatial.returnIdsOnly = true
        guard case .objectIds(let hits) = try store.features.query(spatial, service: "Demo", layer: 2) else {
            Issue.record("no ids")
            return
        }
        var all = LayerQuery()
        all.resultRecordCount = 1000
        var expected: [Int64] = []
        for offset in stride(from: 0, to: 2500, by: 1000) {
            all.resultOffset = offset
            guard case .features(let page) = try store.features.query(all, service: "Demo", layer: 2) else {
                Issue.record("no page")
                return
            }
            for feature in page.features {
                if case .point(let p)? = feature.geometry, RingOrientation.contains(triangle, p), let id = feature.attributes[0].int64Value {
                    expected.append(id)
                }
            }
        }
        #expect(!hits.isEmpty && hits.count < 2500)
        #expect(hits == expected)
    }

    @Test func reprojectsThroughPROJ() throws {
        let store = try makeTemporaryStore()
        try store.schema.createService(pointLayerService(name: "proj"))
        try store.edits.insert([FeatureRow(attributes: [:], geometry: .point(Point(x: 13.405, y: 52.52)))], service: "proj", layer: 0)
        var query = LayerQuery()
        query.outSR = .webMercator
        guard case .features(let page) = try store.features.query(query, service: "proj", layer: 0),
            case .point(let p)? = page.features.first?.geometry
        else {
            Issue.record("no point")
            return
        }
        #expect(abs(p.x - 1_492_237.774) < 0.01 && abs(p.y - 6_894_699.801) < 0.01)
        // A query box in Web Mercator finds the point stored in WGS 84.
        var spatial = LayerQuery()
        spatial.geometry = QueryGeometry(text: "1490000,6890000,1495000,6900000", geometryType: .envelope, inSR: .webMercator)
        spatial.returnCountOnly = true
        guard case .count(let count) = try store.features.query(spatial, service: "proj", layer: 0) else {
            Issue.record("no count")
            return
        }
        #expect(count == 1)
        var unknown = LayerQuery()
        unknown.outSR = SpatialReference(wkid: 999_999)
        #expect(throws: StorageRefusal.unknownSpatialReference(999_999, of: .outputSpatialReference)) {
            try store.features.query(unknown, service: "proj", layer: 0)
        }
    }
}

@Suite struct RTreeBulkLoaderTests {
    @Test func packsFullNodesAndRoundsOutwards() {
        let loader = RTreeBulkLoader(nodeSize: 1228)
        #expect(loader.maxCells == 51)
        let entries = (0..<1000).map { RTreeBulkLoader.Entry(id: Int64($0), envelope: Envelope(xmin: 0.1, ymin: 0.1, xmax: 0.1, ymax: 0.1)) }
        let tree = loader.build(entries)
        #expect(tree.rowids.count == 1000)
        #expect(tree.depth == 1)
        #expect(tree.nodes.count == 1 + 20)
        #expect(Double(entries[0].minX) <= 0.1 && Double(entries[0].maxX) >= 0.1)
        #expect(tree.nodes.allSatisfy { $0.data.count == 1228 })
    }
}

@Suite struct ImportTests {
    @Test func importsGeoJSONInferringTypes() async throws {
        let store = try makeTemporaryStore()
        let imported = try await FeatureImporter(store: store).importFile(
            at: "\(testdataDirectory)/naturalearth_countries.geojson", options: .init(serviceName: "Countries"))
        let layer = imported.layers[0].definition
        #expect(layer.geometryType == .polygon)
        #expect(layer.field(named: "pop_est")?.type == .double)
        #expect(layer.field(named: "gdp_md_est")?.type == .integer)
        #expect(layer.field(named: "name")?.type == .string)
        #expect(try store.features.count(service: "Countries", layer: 0) == 177)
    }

    @Test func importsAGeoPackageWrittenByHand() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gpkg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("sites.gpkg").path
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
                        organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
                    INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, 'GEOGCS[]', NULL);
                    CREATE TABLE gpkg_contents (table_name TEXT PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT, description TEXT,
                        last_change TEXT, min_x REAL, min_y REAL, max_x REAL, max_y REAL, srs_id INTEGER);
                    CREATE TABLE gpkg_geometry_columns (table_name TEXT, column_name TEXT, geometry_type_name TEXT, srs_id INTEGER, z INTEGER, m INTEGER);
                    CREATE TABLE sites (fid INTEGER PRIMARY KEY, geom BLOB, name TEXT(30), visits INTEGER, surveyed DATE);
                    INSERT INTO gpkg_contents(table_name, data_type, srs_id) VALUES ('sites', 'features', 4326);
                    INSERT INTO gpkg_geometry_columns VALUES ('sites', 'geom', 'POINT', 4326, 0, 0);
                    CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
                    INSERT INTO gpkg_contents(table_name, data_type) VALUES ('notes', 'attributes');
                    INSERT INTO notes(body) VALUES ('first'), ('second');
                    """)
            for i in 0..<3 {
                try db.execute(
                    sql: "INSERT INTO sites(geom, name, visits, surveyed) VALUES (?, ?, ?, '2024-05-0\(i + 1)')",
                    arguments: [Data(GeoPackageBinary.encode(.point(Point(x: Double(i), y: 50)), srsID: 4326)), "site \(i)", i])
            }
        }
        let store = try makeTemporaryStore()
        let imported = try await FeatureImporter(store: store).importFile(at: path, options: .init(serviceName: "Sites", isVersioned: true))
        #expect(imported.definition.isVersioned)
        #expect(imported.layers.map(\.definition.kind) == [.featureLayer, .table])
        #expect(imported.layers[0].definition.field(named: "name")?.length == 30)
        #expect(imported.layers[0].definition.field(named: "surveyed")?.type == .date)
        #expect(try store.features.count(service: "Sites", layer: 0) == 3)
        #expect(try store.features.count(service: "Sites", layer: 1) == 2)
    }

    @Test func aFailedImportLeavesNothingBehind() async throws {
        let store = try makeTemporaryStore()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).geojson").path
        try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[1]}}]}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        await #expect(throws: (any Error).self) { try await FeatureImporter(store: store).importFile(at: path, options: .init(serviceName: "Bad")) }
        #expect(try store.catalog().services.isEmpty)
    }
}
