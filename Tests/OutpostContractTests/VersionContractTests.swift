import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// Named versions of a versioned service at store level: a version reads DEFAULT overlaid by
/// its own edits, edits apart from DEFAULT, and posts attribute by attribute, keeping the
/// fields both sides changed in the conflict log.
@Suite struct VersionContractTests {
    @Test(arguments: ContractBackend.all)
    func aVersionEditsApartAndPostsAttributeByAttribute(_ backend: ContractBackend) throws {
        let (store, _) = try backend.fresh()
        try Self.check(store)
    }

    static func check(_ store: some OutpostBackend) throws {
        var definition = pointLayerService(name: "Parcels")
        definition.isVersioned = true
        definition.layers[0].fields.append(FieldDefinition(name: "owner", type: .string, length: 20))
        _ = try store.schema.createService(definition)
        let feature = GlobalID.make()
        _ = try store.edits.applyEdits(
            service: "Parcels",
            edits: [LayerEdits(layerId: 0, adds: [EditFeature(attributes: ["GlobalID": .string(feature), "label": "a", "value": 1, "owner": "x"])])],
            options: EditOptions(useGlobalIds: true))
        #expect(try store.versions.versions(service: "Parcels").map(\.isDefault) == [true])
        let version = try store.versions.createVersion(service: "Parcels", name: "survey", description: "", access: "public")
        #expect(throws: VersionFailure.self) {
            try store.versions.createVersion(service: "Parcels", name: "survey", description: "", access: "public")
        }
        #expect(throws: VersionFailure.notVersioned("Points")) {
            try store.versions.createVersion(service: "Points", name: "v", description: "", access: "public")
        }
        // The version changes `label` and `owner`; DEFAULT meanwhile changes `value` and `owner`.
        _ = try store.versions.applyVersionEdits(
            service: "Parcels", version: version.name,
            edits: [LayerEdits(layerId: 0, updates: [EditFeature(attributes: ["GlobalID": .string(feature), "label": "b", "owner": "version"])])],
            options: EditOptions(useGlobalIds: true), context: EditContext())
        _ = try store.edits.applyEdits(
            service: "Parcels",
            edits: [LayerEdits(layerId: 0, updates: [EditFeature(attributes: ["GlobalID": .string(feature), "value": 2, "owner": "default"])])],
            options: EditOptions(useGlobalIds: true))
        func row(_ version: String?) throws -> [String: JSONValue] {
            var query = LayerQuery()
            query.outFields = ["label", "value", "owner"]
            let answer =
                try version.map { try store.versions.query(query, service: "Parcels", layer: 0, version: $0) }
                ?? store.features.query(query, service: "Parcels", layer: 0)
            guard case .features(let page) = answer, let first = page.features.first else { return [:] }
            return Dictionary(uniqueKeysWithValues: zip(page.fields.map(\.name), first.attributes)).filter { $0.key != "OBJECTID" }
        }
        #expect(try row(version.name) == ["label": "b", "value": 1, "owner": "version"])
        #expect(try row(nil) == ["label": "a", "value": 2, "owner": "default"])
        let post = try store.versions.reconcileAndPost(service: "Parcels", version: version.name)
        #expect(post.posted == 1 && post.conflicts == 1)
        // Each side's own change holds; the field both changed takes the version's (posted last).
        #expect(try row(nil) == ["label": "b", "value": 2, "owner": "version"])
        // The version is now based on what it posted: its next change of a field it posted is no conflict.
        _ = try store.versions.applyVersionEdits(
            service: "Parcels", version: version.name,
            edits: [LayerEdits(layerId: 0, updates: [EditFeature(attributes: ["GlobalID": .string(feature), "owner": "again"])])],
            options: EditOptions(useGlobalIds: true), context: EditContext())
        let again = try store.versions.reconcileAndPost(service: "Parcels", version: version.name)
        #expect(again.posted == 1 && again.conflicts == 0, "\(again)")
        #expect(try row(nil) == ["label": "b", "value": 2, "owner": "again"])
        try store.versions.deleteVersion(service: "Parcels", named: version.name)
        #expect(try store.versions.version(service: "Parcels", named: version.name) == nil)
    }
}
