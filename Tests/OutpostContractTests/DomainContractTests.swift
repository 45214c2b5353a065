import OutpostGeometry
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// Field domains are kept with the schema and enforced on every edit path of every backend:
/// applyEdits (adds and updates) and sync uploads, the other edits following
/// `rollbackOnFailure` (docs/decisions.md, "Field domains").
@Suite struct DomainContractTests {
    static let service = "Trees"

    static func treeService() throws -> ServiceDefinition {
        let species = try JSONParser.parse(
            #"{"type":"codedValue","name":"TreeSpecies","codedValues":[{"name":"Oak","code":1},{"name":"Lime","code":2}]}"#)
        let height = try JSONParser.parse(#"{"type":"range","name":"Height","range":[0,80]}"#)
        return ServiceDefinition(
            name: service, spatialReference: SpatialReference(wkid: 4326),
            layers: [
                LayerDefinition(
                    id: 0, name: "Trees", kind: .featureLayer, geometryType: .point, spatialReference: SpatialReference(wkid: 4326),
                    fields: LayerDefinition.withSystemFields([
                        FieldDefinition(name: "species", type: .integer, domain: species),
                        FieldDefinition(name: "height", type: .double, domain: height),
                    ]))
            ])
    }

    static func tree(species: Int64, height: Double, globalId: String? = nil, objectId: Int64? = nil) -> EditFeature {
        var attributes: JSONObject = ["species": .int(species), "height": .double(height)]
        if let globalId { attributes["GlobalID"] = .string(globalId) }
        if let objectId { attributes["OBJECTID"] = .int(objectId) }
        return EditFeature(attributes: attributes, geometry: ["x": 13.4, "y": 52.5])
    }

    static func fresh(_ backend: SyncContractBackend) throws -> any SyncBackend {
        let (store, _) = try backend.fresh()
        try store.schema.createService(try treeService())
        return store
    }

    @Test(arguments: SyncContractBackend.all)
    func theDomainsAreKeptWithTheSchema(_ backend: SyncContractBackend) throws {
        let store = try Self.fresh(backend)
        let fields = try store.service(named: Self.service).definition.layers[0].fields
        #expect(fields.first { $0.name == "species" }?.fieldDomain?.name == "TreeSpecies")
        #expect(fields.first { $0.name == "height" }?.fieldDomain == .range(name: "Height", minimum: 0, maximum: 80))
    }

    @Test(arguments: SyncContractBackend.all)
    func anEditOutsideADomainFailsAndTheOthersFollowRollbackOnFailure(_ backend: SyncContractBackend) throws {
        let store = try Self.fresh(backend)
        let edits = LayerEdits(
            layerId: 0, adds: [Self.tree(species: 1, height: 12), Self.tree(species: 7, height: 12), Self.tree(species: 2, height: 81)])
        let strict = try store.edits.applyEdits(service: Self.service, edits: [edits], options: EditOptions(rollbackOnFailure: true))
        #expect(strict.layers[0].addResults.map(\.error?.code) == [1003, 1000, 1000])
        #expect(strict.layers[0].addResults[1].error?.description.contains("'TreeSpecies'") == true)
        #expect(strict.layers[0].addResults[2].error?.description.contains("'Height'") == true)
        #expect(try store.features.count(service: Self.service, layer: 0) == 0)
        let lenient = try store.edits.applyEdits(service: Self.service, edits: [edits], options: EditOptions(rollbackOnFailure: false))
        #expect(lenient.layers[0].addResults.map(\.success) == [true, false, false])
        #expect(try store.features.count(service: Self.service, layer: 0) == 1)
        // An update is checked the same way; a field it leaves alone is not.
        let objectId = try #require(lenient.layers[0].addResults[0].objectId)
        let updates = LayerEdits(
            layerId: 0,
            updates: [
                EditFeature(attributes: ["OBJECTID": .int(objectId), "species": .int(9)]),
                EditFeature(attributes: ["OBJECTID": .int(objectId), "height": .double(30)]),
            ])
        let updated = try store.edits.applyEdits(service: Self.service, edits: [updates], options: EditOptions(rollbackOnFailure: false))
        #expect(updated.layers[0].updateResults.map(\.error?.code) == [1000, nil])
    }

    @Test(arguments: SyncContractBackend.all)
    func aSyncedEditOutsideADomainFails(_ backend: SyncContractBackend) throws {
        let store = try Self.fresh(backend)
        let replica = try Contract.createReplica(store, name: "crew", of: Self.service)
        var sync = SynchronizeReplicaRequest(replicaId: replica.id)
        sync.rollbackOnFailure = false
        let edits = LayerEdits(
            layerId: 0,
            adds: [Self.tree(species: 2, height: 5, globalId: GlobalID.make()), Self.tree(species: 3, height: 5, globalId: GlobalID.make())])
        let outcome = try store.sync.applySyncUpload(try SyncPlanner.plan(sync, replica: replica, edits: [edits]), fingerprint: [1])
        #expect(outcome.results[0].addResults.map(\.error?.code) == [nil, 1000])
        #expect(try store.features.count(service: Self.service, layer: 0) == 1)
    }

    @Test(arguments: SyncContractBackend.all)
    func aDomainTheFieldCannotHoldIsRefusedWithTheSchema(_ backend: SyncContractBackend) throws {
        let (store, _) = try backend.fresh()
        for domain in [
            #"{"type":"codedValue","name":"Words","codedValues":[{"name":"one","code":"1"}]}"#,
            #"{"type":"range","name":"Backwards","range":[9,1]}"#,
            #"{"type":"mystery","name":"Unknown"}"#,
        ] {
            var service = try Self.treeService()
            service.layers[0].fields[2].domain = try JSONParser.parse(domain)
            #expect(throws: StoreError.self) { try store.schema.createService(service) }
        }
    }
}
