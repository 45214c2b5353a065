import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// Subtypes are kept with the schema and applied on every edit path of every backend: an add
/// that omits fields takes its subtype's defaults, and each value is checked against the domain
/// its feature's subtype gives the field (docs/import.md, "Subtypes").
@Suite struct SubtypeContractTests {
    static let service = "Water"

    /// Pipes by `kind`: distribution mains (the default) default to PVC of 8 and allow only
    /// 2 to 12 in diameter; transmission mains default to DI of 24 and allow any material.
    static func pipes(versioned: Bool = false) throws -> ServiceDefinition {
        let material = try JSONParser.parse(
            #"{"type":"codedValue","name":"Material","codedValues":[{"name":"PVC","code":"PVC"},{"name":"Ductile iron","code":"DI"}]}"#)
        let diameter = try JSONParser.parse(#"{"type":"range","name":"Diameter","range":[0,100]}"#)
        let distribution = try JSONParser.parse(#"{"type":"range","name":"DistributionDiameter","range":[2,12]}"#)
        return ServiceDefinition(
            name: service, isVersioned: versioned, spatialReference: SpatialReference(wkid: 4326),
            layers: [
                LayerDefinition(
                    id: 0, name: "Pipes", kind: .table, geometryType: nil, spatialReference: SpatialReference(wkid: 4326),
                    fields: LayerDefinition.withSystemFields([
                        FieldDefinition(name: "kind", type: .smallInteger),
                        FieldDefinition(name: "material", type: .string, length: 8, domain: material),
                        FieldDefinition(name: "diameter", type: .double, domain: diameter),
                    ]),
                    // Named in another case than the field: the backends spell it as the layer does.
                    subtypes: LayerSubtypes(
                        field: "KIND", defaultCode: 1,
                        subtypes: [
                            .init(
                                code: 1, name: "Distribution", defaultValues: ["material": "PVC", "diameter": 8], domains: ["diameter": distribution]),
                            .init(
                                code: 2, name: "Transmission", defaultValues: ["material": "DI", "diameter": 24],
                                domains: ["material": .null, "diameter": LayerSubtypes.inherited]),
                        ]))
            ])
    }

    static func fresh(_ backend: SyncContractBackend, versioned: Bool = false) throws -> any SyncBackend {
        let (store, _) = try backend.fresh()
        try store.schema.createService(try pipes(versioned: versioned))
        return store
    }

    static func rows(_ store: any SyncBackend) throws -> [[JSONValue]] {
        var query = LayerQuery()
        query.outFields = ["kind", "material", "diameter"]
        guard case .features(let page) = try store.features.query(query, service: service, layer: 0) else { return [] }
        return page.features.map { feature in
            let row = Dictionary(uniqueKeysWithValues: zip(page.fields.map(\.name), feature.attributes))
            return ["kind", "material", "diameter"].map { row[$0] ?? .null }
        }
    }

    @Test(arguments: SyncContractBackend.all)
    func theSubtypesAreKeptWithTheSchema(_ backend: SyncContractBackend) throws {
        let store = try Self.fresh(backend)
        #expect(try store.service(named: Self.service).definition.layers[0].subtypes == Self.pipes().layers[0].subtypes)
    }

    @Test(arguments: SyncContractBackend.all)
    func anAddThatOmitsFieldsTakesItsSubtypesDefaults(_ backend: SyncContractBackend) throws {
        let store = try Self.fresh(backend)
        let adds: [JSONObject] = [[:], ["kind": 2], ["kind": 2, "diameter": 30], ["material": .null]]
        let outcome = try store.edits.applyEdits(
            service: Self.service, edits: [LayerEdits(layerId: 0, adds: adds.map { EditFeature(attributes: $0) })], options: EditOptions())
        #expect(outcome.layers[0].addResults.map(\.success) == [true, true, true, true])
        // No subtype is the default's; a field sent, even as null, is not omitted.
        let rows = try Self.rows(store)
        #expect(rows == [[1, "PVC", 8.0], [2, "DI", 24.0], [2, "DI", 30.0], [1, .null, 8.0]])
    }

    @Test(arguments: SyncContractBackend.all)
    func eachValueIsCheckedAgainstItsSubtypesDomain(_ backend: SyncContractBackend) throws {
        let store = try Self.fresh(backend)
        let adds: [JSONObject] = [
            ["kind": 1, "diameter": 20],  // outside Distribution's own range
            ["kind": 2, "diameter": 20],  // Transmission inherits the field's 0–100
            ["kind": 2, "material": "Copper"],  // Transmission has no material domain
            ["kind": 1, "material": "Copper"],  // Distribution keeps the field's
            ["kind": 3],  // no such subtype
            ["kind": 2, "diameter": 101],
        ]
        let outcome = try store.edits.applyEdits(
            service: Self.service, edits: [LayerEdits(layerId: 0, adds: adds.map { EditFeature(attributes: $0) })],
            options: EditOptions(rollbackOnFailure: false))
        let results = outcome.layers[0].addResults
        #expect(results.map(\.success) == [false, true, true, false, false, false])
        #expect(results[0].error?.description.contains("'DistributionDiameter'") == true)
        #expect(results[3].error?.description.contains("'Material'") == true)
        #expect(results[4].error?.description.contains("not a subtype") == true)
        #expect(results[5].error?.description.contains("'Diameter'") == true)
    }

    @Test(arguments: SyncContractBackend.all)
    func anUpdateIsCheckedInTheSubtypeItLeavesOrPutsTheFeatureIn(_ backend: SyncContractBackend) throws {
        let store = try Self.fresh(backend)
        let added = try store.edits.applyEdits(
            service: Self.service,
            edits: [LayerEdits(layerId: 0, adds: [EditFeature(attributes: ["kind": 1]), EditFeature(attributes: ["kind": 2])])],
            options: EditOptions())
        let (distribution, transmission) = (added.layers[0].addResults[0].objectId!, added.layers[0].addResults[1].objectId!)
        let updates: [JSONObject] = [
            ["OBJECTID": .int(distribution), "diameter": 20],  // the stored subtype's range refuses it
            ["OBJECTID": .int(transmission), "diameter": 20],
            ["OBJECTID": .int(distribution), "kind": 2, "diameter": 40],  // moved to Transmission with it
            ["OBJECTID": .int(transmission), "material": "Copper"],
        ]
        let outcome = try store.edits.applyEdits(
            service: Self.service, edits: [LayerEdits(layerId: 0, updates: updates.map { EditFeature(attributes: $0) })],
            options: EditOptions(rollbackOnFailure: false))
        #expect(outcome.layers[0].updateResults.map(\.success) == [false, true, true, true])
        #expect(outcome.layers[0].updateResults[0].error?.description.contains("'DistributionDiameter'") == true)
        #expect(try Self.rows(store) == [[2, "PVC", 40.0], [2, "Copper", 20.0]])
    }

    @Test(arguments: SyncContractBackend.all)
    func aSyncedEditIsCheckedAgainstItsSubtypesDomain(_ backend: SyncContractBackend) throws {
        let store = try Self.fresh(backend)
        let replica = try Contract.createReplica(store, name: "crew", of: Self.service)
        var sync = SynchronizeReplicaRequest(replicaId: replica.id)
        sync.rollbackOnFailure = false
        let adds: [JSONObject] = [
            ["GlobalID": .string(GlobalID.make()), "kind": 2, "material": "Steel", "diameter": 30],
            ["GlobalID": .string(GlobalID.make()), "kind": 1, "material": "PVC", "diameter": 30],
        ]
        let edits = LayerEdits(layerId: 0, adds: adds.map { EditFeature(attributes: $0) })
        let outcome = try store.sync.applySyncUpload(try SyncPlanner.plan(sync, replica: replica, edits: [edits]), fingerprint: [1])
        #expect(outcome.results[0].addResults.map(\.error?.code) == [nil, 1000])
        #expect(try Self.rows(store) == [[2, "Steel", 30.0]])
    }

    @Test(arguments: ContractBackend.all)
    func aVersionsEditIsCheckedInTheSubtypeTheVersionHolds(_ backend: ContractBackend) throws {
        let (store, _) = try backend.fresh()
        _ = try store.schema.createService(try Self.pipes(versioned: true))
        let feature = GlobalID.make()
        _ = try store.edits.applyEdits(
            service: Self.service, edits: [LayerEdits(layerId: 0, adds: [EditFeature(attributes: ["GlobalID": .string(feature), "kind": 1])])],
            options: EditOptions(useGlobalIds: true))
        let version = try store.versions.createVersion(service: Self.service, name: "survey", description: "", access: "public")
        func edit(_ attributes: JSONObject) throws -> EditResult {
            var attributes = attributes
            attributes["GlobalID"] = .string(feature)
            let outcome = try store.versions.applyVersionEdits(
                service: Self.service, version: version.name, edits: [LayerEdits(layerId: 0, updates: [EditFeature(attributes: attributes)])],
                options: EditOptions(useGlobalIds: true), context: EditContext())
            return outcome.layers[0].updateResults[0]
        }
        #expect(try edit(["diameter": 20]).error?.code == 1000)
        #expect(try edit(["kind": 2]).success)
        // The version now holds a transmission main, whatever DEFAULT holds.
        #expect(try edit(["diameter": 20]).success)
    }

    @Test(arguments: SyncContractBackend.all)
    func subtypesTheLayerCannotHoldAreRefusedWithTheSchema(_ backend: SyncContractBackend) throws {
        let (store, _) = try backend.fresh()
        let breakages: [(inout LayerSubtypes) -> Void] = [
            { $0.field = "material" },  // not an integer field
            { $0.field = "nothing" },
            { $0.defaultCode = 9 },
            { $0.subtypes[1].code = 1 },
            { $0.subtypes[0].defaultValues["diameter"] = 50 },  // outside its own domain
            { $0.subtypes[0].defaultValues["OBJECTID"] = 5 },
            { $0.subtypes[1].domains["diameter"] = ["type": "codedValue", "name": "Words", "codedValues": [["name": "a", "code": "a"]]] },
        ]
        for breakage in breakages {
            var service = try Self.pipes()
            breakage(&service.layers[0].subtypes!)
            #expect(throws: StoreError.self) { try store.schema.createService(service) }
        }
    }
}
