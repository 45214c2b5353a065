import Foundation
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostDataTools
@testable import OutpostSpatiaLite

/// A File Geodatabase's subtypes and domains, as its `GDB_Items` definitions state them in
/// Esri's geodatabase XML schema, and what an import makes of them (docs/import.md, "Subtypes").
@Suite struct GeodatabaseSubtypeTests {
    /// Water mains by `ASSETTYPE`: each subtype names its own domains and defaults, one field
    /// without a domain, one by the field's own domain.
    static let mains = """
        <?xml version="1.0" encoding="UTF-8"?>
        <typens:DEFeatureClassInfo xmlns:typens="http://www.esri.com/schemas/ArcGIS/10.3" \
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
        xsi:type="typens:DEFeatureClassInfo">
          <CatalogPath>\\Mains</CatalogPath>
          <Name>Mains</Name>
          <DatasetType>esriDTFeatureClass</DatasetType>
          <SubtypeFieldName>ASSETTYPE</SubtypeFieldName>
          <DefaultSubtypeCode>2</DefaultSubtypeCode>
          <Subtypes xsi:type="typens:ArrayOfSubtype">
            <Subtype xsi:type="typens:Subtype">
              <SubtypeName>Distribution main</SubtypeName>
              <SubtypeCode>1</SubtypeCode>
              <FieldInfos xsi:type="typens:ArrayOfSubtypeFieldInfo">
                <SubtypeFieldInfo xsi:type="typens:SubtypeFieldInfo">
                  <FieldName>MATERIAL</FieldName><DomainName>MaterialCD</DomainName>
                  <DefaultValue xsi:type="xs:string">PVC</DefaultValue>
                </SubtypeFieldInfo>
                <SubtypeFieldInfo xsi:type="typens:SubtypeFieldInfo">
                  <FieldName>DIAMETER</FieldName><DomainName>SmallDiameter</DomainName>
                  <DefaultValue xsi:type="xs:double">8</DefaultValue>
                </SubtypeFieldInfo>
                <SubtypeFieldInfo xsi:type="typens:SubtypeFieldInfo">
                  <FieldName>INSTALLED</FieldName>
                  <DefaultValue xsi:type="xs:dateTime">2001-02-03T04:05:06</DefaultValue>
                </SubtypeFieldInfo>
              </FieldInfos>
            </Subtype>
            <Subtype xsi:type="typens:Subtype">
              <SubtypeName>Transmission main</SubtypeName>
              <SubtypeCode>2</SubtypeCode>
              <FieldInfos xsi:type="typens:ArrayOfSubtypeFieldInfo">
                <SubtypeFieldInfo xsi:type="typens:SubtypeFieldInfo">
                  <FieldName>MATERIAL</FieldName>
                  <DefaultValue xsi:type="xs:string">Steel</DefaultValue>
                </SubtypeFieldInfo>
                <SubtypeFieldInfo xsi:type="typens:SubtypeFieldInfo">
                  <FieldName>PRESSURE</FieldName><DomainName>NoSuchDomain</DomainName>
                  <DefaultValue xsi:type="xs:int">6</DefaultValue>
                </SubtypeFieldInfo>
              </FieldInfos>
            </Subtype>
          </Subtypes>
          <FeatureType>esriFTSimple</FeatureType>
        </typens:DEFeatureClassInfo>
        """

    static let materials = """
        <typens:GPCodedValueDomain2 xsi:type="typens:GPCodedValueDomain2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
        xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:typens="http://www.esri.com/schemas/ArcGIS/10.1">
          <DomainName>MaterialCD</DomainName><FieldType>esriFieldTypeString</FieldType>
          <CodedValues xsi:type="typens:ArrayOfCodedValue">
            <CodedValue xsi:type="typens:CodedValue"><Name>Polyvinyl chloride</Name><Code xsi:type="xs:string">PVC</Code></CodedValue>
            <CodedValue xsi:type="typens:CodedValue"><Name>Ductile iron</Name><Code xsi:type="xs:string">DI</Code></CodedValue>
          </CodedValues>
        </typens:GPCodedValueDomain2>
        """

    static let smallDiameter = """
        <typens:GPRangeDomain2 xsi:type="typens:GPRangeDomain2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
        xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:typens="http://www.esri.com/schemas/ArcGIS/10.1">
          <DomainName>SmallDiameter</DomainName><FieldType>esriFieldTypeDouble</FieldType>
          <MaxValue xsi:type="xs:double">12</MaxValue><MinValue xsi:type="xs:double">2</MinValue>
        </typens:GPRangeDomain2>
        """

    static func catalog() throws -> GeodatabaseCatalog {
        try GeodatabaseCatalog(items: [("Mains", mains), ("MaterialCD", materials), ("SmallDiameter", smallDiameter)])
    }

    /// The layer GDAL's copy makes of `Mains`: its fields renamed as an import names them, the
    /// material field with the domain GDAL carried over.
    static func layer() throws -> LayerDefinition {
        LayerDefinition(
            id: 0, name: "Mains", kind: .table, geometryType: nil, spatialReference: .wgs84,
            fields: LayerDefinition.withSystemFields([
                FieldDefinition(name: "assettype", type: .smallInteger),
                FieldDefinition(name: "material", type: .string, domain: try catalog().domain(named: "materialcd")!.json),
                FieldDefinition(name: "diameter", type: .double),
                FieldDefinition(name: "installed", type: .date),
                FieldDefinition(name: "pressure", type: .integer),
            ]))
    }

    static let fieldNames = [
        "assettype": "assettype", "material": "material", "diameter": "diameter", "installed": "installed", "pressure": "pressure",
    ]

    @Test func subtypesAndTheDomainsTheyNameAreReadWithTheirTypes() throws {
        let catalog = try Self.catalog()
        let mains = try #require(catalog.subtypeClass(of: "MAINS"))
        #expect(mains.field == "ASSETTYPE" && mains.defaultCode == 2)
        #expect(mains.subtypes.map(\.code) == [1, 2])
        #expect(mains.subtypes.map(\.name) == ["Distribution main", "Transmission main"])
        #expect(
            mains.subtypes[0].fields == [
                .init(field: "MATERIAL", domainName: "MaterialCD", defaultValue: "PVC"),
                .init(field: "DIAMETER", domainName: "SmallDiameter", defaultValue: 8.0),
                // 2001-02-03T04:05:06 UTC in epoch milliseconds, as date fields hold it.
                .init(field: "INSTALLED", domainName: nil, defaultValue: 981_173_106_000),
            ])
        #expect(mains.subtypes[1].fields[1].defaultValue == 6)
        #expect(catalog.domain(named: "smalldiameter") == .range(name: "SmallDiameter", minimum: 2, maximum: 12))
        #expect(
            catalog.domain(named: "MaterialCD")
                == .codedValue(name: "MaterialCD", codes: [.init(name: "Polyvinyl chloride", code: "PVC"), .init(name: "Ductile iron", code: "DI")]))
        #expect(catalog.relationships.isEmpty)
    }

    /// A definition is the uploader's: one declaring entities (an external one naming a file
    /// on the server) is refused before it is parsed, and nothing of the file is read.
    @Test func aDefinitionDeclaringEntitiesIsRefusedUnread() throws {
        let secret = NSTemporaryDirectory() + "xxe-\(UUID().uuidString).txt"
        try "TOPSECRET".write(toFile: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: secret) }
        let hostile = Self.mains.replacingOccurrences(
            of: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            with: """
                <?xml version="1.0" encoding="UTF-8"?><!DOCTYPE r [<!ENTITY x SYSTEM "file://\(secret)">]>
                """
        ).replacingOccurrences(of: "Distribution main", with: "&x;")
        #expect(throws: GeodatabaseCatalog.Unreadable.self) {
            try GeodatabaseCatalog(items: [("Mains", hostile), ("MaterialCD", Self.materials), ("SmallDiameter", Self.smallDiameter)])
        }
    }

    @Test func aTableWithoutSubtypesHasNone() throws {
        let catalog = try GeodatabaseCatalog(items: [("Trees", GeodatabaseCatalogTests.featureClass)])
        #expect(catalog.subtypeClasses.isEmpty && catalog.subtypeClass(of: "Trees") == nil)
    }

    @Test func anImportKeepsTheSubtypesInItsFieldNamesAndSaysWhatItLeftOut() throws {
        var warnings: [String] = []
        let subtypes = try #require(
            try Self.catalog().layerSubtypes(of: "Mains", layer: try Self.layer(), fieldNames: Self.fieldNames, warn: { warnings.append($0) }))
        #expect(subtypes.field == "assettype" && subtypes.defaultCode == 2)
        // Distribution names the field's own material domain: inherited, so no entry.
        #expect(subtypes.subtypes[0].domains == ["diameter": FieldDomain.range(name: "SmallDiameter", minimum: 2, maximum: 12).json])
        #expect(subtypes.subtypes[0].defaultValues == ["material": "PVC", "diameter": 8.0, "installed": 981_173_106_000])
        // Transmission names no material domain: none there; its pressure domain is unknown.
        #expect(subtypes.subtypes[1].domains == ["material": .null])
        #expect(subtypes.subtypes[1].defaultValues == ["material": "Steel", "pressure": 6])
        #expect(warnings == ["Mains: subtype Transmission main names the domain NoSuchDomain, which the geodatabase does not define"])
    }

    @Test func subtypesTheLayerCannotHoldAreLeftOutWithAWord() throws {
        var warnings: [String] = []
        var layer = try Self.layer()
        layer.fields.removeAll { $0.name == "assettype" }
        #expect(
            try Self.catalog().layerSubtypes(
                of: "Mains", layer: layer, fieldNames: Self.fieldNames.filter { $0.key != "assettype" }, warn: { warnings.append($0) }) == nil)
        #expect(warnings == ["Mains: its subtype field ASSETTYPE is not among the imported fields; subtypes not kept"])
        // A default outside its subtype's domain would make every add that takes it fail.
        warnings = []
        let outside = Self.mains.replacingOccurrences(
            of: #"<DefaultValue xsi:type="xs:double">8</DefaultValue>"#, with: #"<DefaultValue xsi:type="xs:double">80</DefaultValue>"#)
        let catalog = try GeodatabaseCatalog(items: [("Mains", outside), ("MaterialCD", Self.materials), ("SmallDiameter", Self.smallDiameter)])
        #expect(catalog.layerSubtypes(of: "Mains", layer: try Self.layer(), fieldNames: Self.fieldNames, warn: { warnings.append($0) }) == nil)
        #expect(warnings.last?.contains("subtypes not kept") == true && warnings.last?.contains("diameter") == true)
    }
}

/// GDAL's time limit (docs/portal.md, "Publishing"): past it the run ends in a failure that says so.
@Suite struct GDALTimeLimitTests {
    @Test func aConversionPastItsTimeLimitFailsSayingSo() async throws {
        let target = NSTemporaryDirectory() + "limit-\(UUID().uuidString).gpkg"
        defer { try? FileManager.default.removeItem(atPath: target) }
        // A nanosecond: the limit ends the run before GDAL's process can have done anything.
        do {
            try await GDALSource.convert(TestFolders.testdata + "/naturalearth_cities.geojson", to: target, timeLimit: .nanoseconds(1))
            Issue.record("the conversion outran a nanosecond")
        } catch StoreError.importFailed(let reason) {
            #expect(reason.hasPrefix("GDAL did not read ") && reason.hasSuffix(" within 0 s."), "\(reason)")
        }
    }
}
