import Foundation
import OutpostWire
import Testing

@testable import OutpostDataTools
@testable import OutpostSpatiaLite

/// A File Geodatabase's relationship classes, as GDAL 3.6's OpenFileGDB driver writes their
/// definitions into `GDB_Items` (docs/import.md, "File Geodatabase relationships").
@Suite struct GeodatabaseCatalogTests {
    /// A `DERelationshipClassInfo` as GDAL writes it, cut to the elements Outpost reads and a
    /// few it passes over.
    static func definition(
        name: String, origin: String, destination: String, primary: String, foreign: String,
        cardinality: String = "esriRelCardinalityOneToMany", attachment: Bool = false, attributed: Bool = false
    ) -> String {
        """
        <DERelationshipClassInfo xsi:type="typens:DERelationshipClassInfo" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
        xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:typens="http://www.esri.com/schemas/ArcGIS/10.1">
          <CatalogPath>\\\(name)</CatalogPath>
          <Name>\(name)</Name>
          <DatasetType>esriDTRelationshipClass</DatasetType>
          <GPFieldInfoExs xsi:type="typens:ArrayOfGPFieldInfoEx" />
          <Cardinality>\(cardinality)</Cardinality>
          <IsAttributed>\(attributed)</IsAttributed>
          <IsComposite>true</IsComposite>
          <OriginClassNames xsi:type="typens:Names"><Name>\(origin)</Name></OriginClassNames>
          <DestinationClassNames xsi:type="typens:Names"><Name>\(destination)</Name></DestinationClassNames>
          <ForwardPathLabel>inspections</ForwardPathLabel>
          <BackwardPathLabel>tree</BackwardPathLabel>
          <OriginClassKeys xsi:type="typens:ArrayOfRelationshipClassKey">
            <RelationshipClassKey xsi:type="typens:RelationshipClassKey">
              <ObjectKeyName>\(primary)</ObjectKeyName><ClassKeyName></ClassKeyName><KeyRole>esriRelKeyRoleOriginPrimary</KeyRole>
            </RelationshipClassKey>
            <RelationshipClassKey xsi:type="typens:RelationshipClassKey">
              <ObjectKeyName>\(foreign)</ObjectKeyName><ClassKeyName></ClassKeyName><KeyRole>esriRelKeyRoleOriginForeign</KeyRole>
            </RelationshipClassKey>
          </OriginClassKeys>
          <IsAttachmentRelationship>\(attachment)</IsAttachmentRelationship>
        </DERelationshipClassInfo>
        """
    }

    static let featureClass = """
        <?xml version="1.0" encoding="UTF-8"?>
        <typens:DEFeatureClassInfo xmlns:typens="http://www.esri.com/schemas/ArcGIS/10.3" \
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><Name>Trees</Name></typens:DEFeatureClassInfo>
        """

    @Test func relationshipClassesAreReadAndOtherItemsPassedOver() throws {
        let catalog = try GeodatabaseCatalog(items: [
            ("Trees", Self.featureClass),
            (
                "Trees_Inspections",
                Self.definition(name: "Trees_Inspections", origin: "Trees", destination: "Inspections", primary: "GlobalID", foreign: "TreeGUID")
            ),
            (
                "Trees__ATTACHREL",
                Self.definition(
                    name: "Trees__ATTACHREL", origin: "Trees", destination: "Trees__ATTACH", primary: "GlobalID", foreign: "REL_GLOBALID",
                    attachment: true)
            ),
        ])
        #expect(
            catalog.relationships == [
                .init(
                    name: "Trees_Inspections", origin: "Trees", destination: "Inspections", cardinality: .oneToMany, isComposite: true,
                    originPrimaryKey: "GlobalID", originForeignKey: "TreeGUID", forwardLabel: "inspections", backwardLabel: "tree"),
                .init(
                    name: "Trees__ATTACHREL", origin: "Trees", destination: "Trees__ATTACH", cardinality: .oneToMany, isComposite: true,
                    originPrimaryKey: "GlobalID", originForeignKey: "REL_GLOBALID", forwardLabel: "inspections", backwardLabel: "tree",
                    isAttachment: true),
            ])
        #expect(catalog.attachmentRelationship(destination: "trees__attach")?.origin == "Trees")
        #expect(catalog.attachmentRelationship(destination: "Inspections") == nil)
    }

    @Test func aDefinitionWithoutItsKeysIsRefusedByName() {
        let broken = Self.definition(name: "Broken", origin: "A", destination: "B", primary: "GlobalID", foreign: "x")
            .replacingOccurrences(of: "esriRelKeyRoleOriginForeign", with: "esriRelKeyRoleDestinationPrimary")
        #expect(throws: GeodatabaseCatalog.Unreadable(item: "Broken", reason: "no origin primary or foreign key")) {
            try GeodatabaseCatalog(items: [("Broken", broken)])
        }
        #expect(throws: GeodatabaseCatalog.Unreadable.self) {
            try GeodatabaseCatalog(items: [("Cut", "<DERelationshipClassInfo><Name>Cut")])
        }
    }

    static func layer(_ id: Int, _ name: String, fields: [String]) -> LayerDefinition {
        LayerDefinition(
            id: id, name: name, kind: .table, geometryType: nil, spatialReference: SpatialReference(wkid: 4326),
            fields: LayerDefinition.withSystemFields(fields.map { FieldDefinition(name: $0, type: .string) }))
    }

    @Test func relationshipsAreWrittenOnBothLayersByTheirImportedKeyNames() throws {
        var layers = [Self.layer(0, "Trees", fields: ["name"]), Self.layer(1, "Inspections", fields: ["Tree_GUID"])]
        let catalog = try GeodatabaseCatalog(items: [
            ("R", Self.definition(name: "R", origin: "Trees", destination: "Inspections", primary: "GlobalID", foreign: "Tree GUID"))
        ])
        var warnings: [String] = []
        FeatureImporter<SpatiaLiteBackend>.relate(
            &layers, sources: ["Trees", "Inspections"], fieldNames: [["name": "name"], ["tree guid": "Tree_GUID"]], catalog: catalog,
            warn: { warnings.append($0) })
        #expect(warnings.isEmpty)
        #expect(
            layers[0].relationships == [
                RelationshipDefinition(
                    id: 0, name: "inspections", relatedTableId: 1, cardinality: .oneToMany, role: .origin, keyField: "GlobalID", composite: true)
            ])
        #expect(
            layers[1].relationships == [
                RelationshipDefinition(
                    id: 0, name: "tree", relatedTableId: 0, cardinality: .oneToMany, role: .destination, keyField: "Tree_GUID", composite: true)
            ])
    }

    @Test func classesOutpostCannotKeepAreLeftOutWithAWord() throws {
        var layers = [Self.layer(0, "Trees", fields: ["name"]), Self.layer(1, "Inspections", fields: ["tree"])]
        let catalog = try GeodatabaseCatalog(items: [
            ("ByObjectId", Self.definition(name: "ByObjectId", origin: "Trees", destination: "Inspections", primary: "OBJECTID", foreign: "tree")),
            (
                "Many",
                Self.definition(
                    name: "Many", origin: "Trees", destination: "Inspections", primary: "GlobalID", foreign: "tree",
                    cardinality: "esriRelCardinalityManyToMany")
            ),
            ("NoKey", Self.definition(name: "NoKey", origin: "Trees", destination: "Inspections", primary: "GlobalID", foreign: "gone")),
            ("Elsewhere", Self.definition(name: "Elsewhere", origin: "Trees", destination: "NotImported", primary: "GlobalID", foreign: "tree")),
        ])
        var warnings: [String] = []
        FeatureImporter<SpatiaLiteBackend>.relate(
            &layers, sources: ["Trees", "Inspections"], fieldNames: [["name": "name"], ["tree": "tree"]], catalog: catalog,
            warn: { warnings.append($0) })
        let unrelated = layers.allSatisfy { $0.relationships.isEmpty }
        #expect(unrelated)
        #expect(warnings.count == 3)
        #expect(warnings[0].contains("ByObjectId") && warnings[0].contains("OBJECTID"))
        #expect(warnings[1].contains("many-to-many") && warnings[2].contains("NoKey"))
    }
}
