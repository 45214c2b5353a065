import OutpostWire
import Testing

/// Subtypes as the layer resource serves them (`typeIdField`, `types`, `templates`,
/// `subtypeField`, `subtypes`) and the rules an edit meets, pure (docs/import.md, "Subtypes").
@Suite struct LayerSubtypesTests {
    static let material = FieldDomain.codedValue(name: "Material", codes: [.init(name: "PVC", code: "PVC"), .init(name: "Ductile iron", code: "DI")])
    static let small = FieldDomain.range(name: "SmallDiameter", minimum: 2, maximum: 12)

    static let layer = LayerDefinition(
        id: 0, name: "Mains", kind: .featureLayer, geometryType: .polyline, spatialReference: .wgs84,
        fields: LayerDefinition.withSystemFields([
            FieldDefinition(name: "kind", type: .smallInteger),
            FieldDefinition(name: "material", type: .string, domain: material.json),
            FieldDefinition(name: "diameter", type: .double),
        ]),
        subtypes: LayerSubtypes(
            field: "kind", defaultCode: 1,
            subtypes: [
                .init(code: 1, name: "Distribution", defaultValues: ["material": "PVC", "diameter": 8], domains: ["diameter": small.json]),
                .init(code: 2, name: "Transmission", defaultValues: ["material": "DI"], domains: ["material": .null]),
            ]))

    static func resource() -> JSONValue {
        FeatureServiceMetadata.layerJSON(
            layer, service: ServiceDefinition(name: "Water", layers: [layer]),
            state: .init(extent: Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1), lastEditDate: 0))
    }

    @Test func typesAreTheSubtypesWithTheirDomainsAndOneTemplateEach() throws {
        let json = Self.resource()
        #expect(json["typeIdField"] == "kind")
        #expect(json["templates"] == [])
        let types = try #require(json["types"]?.arrayValue)
        #expect(types.map { $0["id"] } == [1, 2])
        #expect(types.map { $0["name"] } == ["Distribution", "Transmission"])
        // The field's own material domain is inherited in Distribution and absent in Transmission.
        #expect(types[0]["domains"] == ["material": ["type": "inherited"], "diameter": Self.small.json])
        #expect(types[1]["domains"] == [:])
        let template = try #require(types[0]["templates"]?[0])
        #expect(template["name"] == "Distribution" && template["drawingTool"] == "esriFeatureEditToolLine")
        #expect(template["prototype"]?["attributes"] == ["material": "PVC", "diameter": 8, "kind": 1])
    }

    @Test func subtypesAreServedAsArcGISNamesThemAndStoredWhole() throws {
        let json = Self.resource()
        #expect(json["subtypeField"] == "kind" && json["defaultSubtypeCode"] == 1)
        #expect(json["subtypes"]?[1]?["domains"] == [:], "no word for 'no domain here' in ArcGIS's JSON")
        let subtypes = try #require(Self.layer.subtypes)
        #expect(subtypes.json()["subtypes"]?[1]?["domains"] == ["material": .null])
        #expect(LayerSubtypes(json: subtypes.json()) == subtypes)
        #expect(LayerSubtypes(json: ["subtypeField": "kind"]) == nil)
        // A client reads the served form back to what was stored, "no domain here" included.
        #expect(json["subtypes"]?[0]?["domains"] == ["material": ["type": "inherited"], "diameter": Self.small.json])
        #expect(LayerSubtypes(served: json, fields: Self.layer.fields) == subtypes)
    }

    @Test func theSubtypeFieldIsServedAsTheLayerSpellsIt() throws {
        var layer = Self.layer
        layer.subtypes?.field = "KIND"
        let json = FeatureServiceMetadata.layerJSON(
            layer, service: ServiceDefinition(name: "Water", layers: [layer]),
            state: .init(extent: Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1), lastEditDate: 0))
        #expect(json["typeIdField"] == "kind" && json["subtypeField"] == "kind")
        #expect(json["types"]?[0]?["templates"]?[0]?["prototype"]?["attributes"]?["kind"] == 1)
        #expect(layer.subtypeField?.name == "kind")
    }

    @Test func aLayerWithoutSubtypesHasOneTemplateAndNoTypes() {
        var plain = Self.layer
        plain.subtypes = nil
        let json = FeatureServiceMetadata.layerJSON(
            plain, service: ServiceDefinition(name: "Water", layers: [plain]),
            state: .init(extent: Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1), lastEditDate: 0))
        #expect(json["typeIdField"] == "" && json["types"] == [] && json["subtypes"] == nil)
        #expect(json["templates"]?.arrayValue?.count == 1)
    }

    @Test func anAddTakesTheDefaultSubtypeAndItsDefaultsForWhatItOmits() {
        #expect(Self.layer.addingSubtypeDefaults(to: [:]) == ["kind": 1, "material": "PVC", "diameter": 8])
        #expect(Self.layer.addingSubtypeDefaults(to: ["KIND": 2, "Material": .null]) == ["KIND": 2, "Material": .null])
        // An unknown code gets no defaults; checking it refuses it.
        #expect(Self.layer.addingSubtypeDefaults(to: ["kind": 7]) == ["kind": 7])
    }

    @Test func eachValueMeetsTheDomainOfItsFeaturesSubtype() throws {
        #expect(throws: EditError.self) { try Self.layer.checkedValues(["kind": 1, "diameter": 20]) }
        #expect(try Self.layer.checkedValues(["kind": 2, "diameter": 20, "material": "Copper"])["material"] == .text("Copper"))
        #expect(throws: EditError.self) { try Self.layer.checkedValues(["kind": 1, "material": "Copper"]) }
        #expect(throws: EditError.self) { try Self.layer.checkedValues(["kind": 3]) }
        #expect(throws: EditError.self) { try Self.layer.checkedValues(["kind": "1"]) }
        // Without a subtype the field's own domain holds; null is no subtype.
        #expect(throws: EditError.self) { try Self.layer.checkedValues(["kind": .null, "material": "Copper"]) }
        #expect(try Self.layer.checkedValues(["kind": .null, "diameter": 20])["diameter"] == .real(20))
    }

    @Test func anUpdateThatKeepsTheSubtypeIsCheckedInTheStoredOne() throws {
        #expect(Self.layer.needsStoredSubtype(toCheck: ["diameter": 20]))
        #expect(Self.layer.needsStoredSubtype(toCheck: ["MATERIAL": "PVC"]))
        #expect(!Self.layer.needsStoredSubtype(toCheck: ["kind": 2, "diameter": 20]))
        #expect(!Self.layer.needsStoredSubtype(toCheck: ["OBJECTID": 4]))
        #expect(throws: EditError.self) { try Self.layer.checkedValues(["diameter": 20], storedSubtype: 1) }
        #expect(try Self.layer.checkedValues(["diameter": 20], storedSubtype: 2)["diameter"] == .real(20))
    }
}
