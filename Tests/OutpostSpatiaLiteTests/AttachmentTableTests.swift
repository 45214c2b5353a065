import Foundation
import GRDB
import OutpostWire
import Testing

@testable import OutpostDataTools
@testable import OutpostSpatiaLite

/// Which source tables are attachments, and which GlobalID columns are kept
/// (docs/import.md, "File Geodatabase relationships, attachments and GlobalIDs").
@Suite struct AttachmentTableTests {
    static func table(_ name: String, _ columns: [String]) -> SourceTable {
        SourceTable(
            name: name, dataType: "attributes", geometryColumn: nil, geometryType: nil, wkid: 4326,
            columns: [(name: "fid", declared: "INTEGER", isPrimaryKey: true)] + columns.map { (name: $0, declared: "TEXT", isPrimaryKey: false) })
    }

    static let attachColumns = ["REL_GLOBALID", "CONTENT_TYPE", "ATT_NAME", "DATA"]

    @Test func aGeoPackageAttachTableIsFoundByItsNameAndColumns() {
        let tables = [
            Self.table("Trees", ["GlobalID"]), Self.table("Trees__ATTACH", Self.attachColumns), Self.table("Notes__ATTACH", ["REL_GLOBALID"]),
        ]
        var warnings: [String] = []
        let found = AttachmentTable.find(in: tables, catalog: GeodatabaseCatalog(), warn: { warnings.append($0) })
        #expect(found.map(\.table) == ["Trees__ATTACH"], "a table without DATA, or without its parent, is no attachment table")
        #expect(found.first?.parent == "Trees" && found.first?.foreignKey == "REL_GLOBALID" && warnings.isEmpty)
    }

    @Test func aCatalogNamesTheTableItsKeysAndAParentInAnyCase() {
        let catalog = GeodatabaseCatalog(relationships: [
            .init(
                name: "Photos", origin: "TREES", destination: "photos", cardinality: .oneToMany, isComposite: true,
                originPrimaryKey: "GlobalID", originForeignKey: "TreeRef", isAttachment: true)
        ])
        let found = AttachmentTable.find(
            in: [Self.table("Trees", ["GlobalID"]), Self.table("photos", ["TreeRef", "DATA"])], catalog: catalog, warn: { _ in })
        #expect(found.map(\.table) == ["photos"] && found.first?.parent == "Trees" && found.first?.foreignKey == "TreeRef")
    }

    @Test func attachmentsKeyedByAnythingButTheGlobalIDStayATableWithAWord() {
        let catalog = GeodatabaseCatalog(relationships: [
            .init(
                name: "Old", origin: "Trees", destination: "Trees__ATTACH", cardinality: .oneToMany, isComposite: true,
                originPrimaryKey: "OBJECTID", originForeignKey: "REL_OBJECTID", isAttachment: true)
        ])
        var warnings: [String] = []
        let found = AttachmentTable.find(
            in: [Self.table("Trees", []), Self.table("Trees__ATTACH", ["REL_OBJECTID", "DATA"])], catalog: catalog, warn: { warnings.append($0) })
        #expect(found.isEmpty)
        #expect(warnings == ["Trees__ATTACH: attachments keyed by OBJECTID, not the GlobalID, are imported as a table"])
    }

    /// A table `t` with one text column `GlobalID` holding `values`.
    static func globalIdColumn(_ values: [String?]) throws -> String? {
        let db = try DatabaseQueue()
        return try db.write { db in
            try db.execute(sql: "CREATE TABLE t (fid INTEGER PRIMARY KEY, GlobalID TEXT)")
            for value in values { try db.execute(sql: "INSERT INTO t (GlobalID) VALUES (?)", arguments: [value]) }
            return try FeatureImporter<SpatiaLiteBackend>.globalIdColumn(of: table("t", ["GlobalID"]), db: db)
        }
    }

    @Test func aGlobalIDColumnIsKeptOnlyWhenItsValuesAreDistinctGUIDs() throws {
        let a = "{0000000A-0000-4000-8000-000000000001}"
        #expect(try Self.globalIdColumn([a, "0000000b-0000-4000-8000-000000000002", nil]) == "GlobalID", "any spelling, nulls drawn anew")
        #expect(try Self.globalIdColumn([a, "not a guid"]) == nil, "an ordinary field")
        #expect(try Self.globalIdColumn([a, a.lowercased()]) == nil, "the same GUID twice, in another case")
        let db = try DatabaseQueue()
        let none = try db.read { db in try FeatureImporter<SpatiaLiteBackend>.globalIdColumn(of: Self.table("t", ["name"]), db: db) }
        #expect(none == nil)
    }
}
