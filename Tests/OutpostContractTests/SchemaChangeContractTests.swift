import Foundation
import OutpostGeometry
import OutpostPostgres
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// `CatalogStore.addFields` (issue 47, `addToDefinition`) on every backend: the fields come
/// after the layer's own, existing rows hold null, new rows and queries take them, the layer's
/// last edit date moves; a refused field refuses the whole call and changes nothing; the
/// layers of a versioned service are refused; another process sees the new fields.
@Suite struct SchemaChangeContractTests {
    static let added = [
        FieldDefinition(name: "inspected", type: .string, alias: "Inspected", length: 50),
        FieldDefinition(name: "visits", type: .integer, defaultValue: 0),
        FieldDefinition(name: "seen", type: .date),
    ]

    /// The `label` and the named field of every feature, by label.
    static func values(_ store: any OutpostBackend, _ field: String) throws -> [String: JSONValue] {
        var query = LayerQuery()
        query.outFields = ["label", field]
        query.returnGeometry = false
        guard case .features(let page) = try store.features.query(query, service: Contract.service, layer: 0) else { return [:] }
        let label = try #require(page.fields.firstIndex { $0.name == "label" })
        let value = try #require(page.fields.firstIndex { $0.name == field })
        return Dictionary(uniqueKeysWithValues: page.features.map { ($0.attributes[label].stringValue ?? "", $0.attributes[value]) })
    }

    @Test(arguments: ContractBackend.all)
    func addedFieldsFollowTheLayersOwnAndTakeValues(_ backend: ContractBackend) throws {
        let (store, clock) = try backend.fresh()
        try store.edits.insert([FeatureRow(attributes: ["label": "old"], geometry: .point(Point(x: 1, y: 1)))], service: Contract.service, layer: 0)
        let before = try store.schema.layer(service: Contract.service, id: 0)
        clock.advance(milliseconds: 60_000)
        let layer = try store.schema.addFields(Self.added, service: Contract.service, layer: 0)

        #expect(layer.definition.fields == before.definition.fields + Self.added)
        #expect(try store.schema.layer(service: "points", id: 0).definition.fields.suffix(3) == Self.added[...], "the catalog read again")
        #expect(try store.features.lastEditDate(of: layer) == clock.milliseconds())
        try store.edits.insert(
            [
                FeatureRow(
                    attributes: ["label": "new", "inspected": "today", "visits": 3, "seen": 1_700_000_000_000], geometry: .point(Point(x: 2, y: 2)))
            ],
            service: Contract.service, layer: 0)
        #expect(try Self.values(store, "inspected") == ["old": .null, "new": "today"])
        #expect(try Self.values(store, "visits") == ["old": .null, "new": 3])
        #expect(try Self.values(store, "seen") == ["old": .null, "new": 1_700_000_000_000])
    }

    @Test(arguments: ContractBackend.all)
    func oneRefusedFieldRefusesTheCallAndChangesNothing(_ backend: ContractBackend) throws {
        let (store, _) = try backend.fresh()
        let before = try store.schema.layer(service: Contract.service, id: 0).definition.fields
        let refused: [[FieldDefinition]] = [
            [FieldDefinition(name: "fine", type: .string), FieldDefinition(name: "LABEL", type: .string)],
            [FieldDefinition(name: "fine", type: .string), FieldDefinition(name: "Fine", type: .integer)],
            [FieldDefinition(name: "fine", type: .string), FieldDefinition(name: "shape", type: .string)],
            [FieldDefinition(name: "fine", type: .string), FieldDefinition(name: "outpost_replica", type: .string)],
            [FieldDefinition(name: "fine", type: .string), FieldDefinition(name: "tableoid", type: .integer)],
            [FieldDefinition(name: "fine", type: .string), FieldDefinition(name: "x y", type: .string)],
            [FieldDefinition(name: "fine", type: .string), FieldDefinition(name: "blob", type: .blob)],
            [FieldDefinition(name: "fine", type: .string), FieldDefinition(name: "gid", type: .globalID)],
            [FieldDefinition(name: "fine", type: .string), FieldDefinition(name: "strict", type: .string, nullable: false)],
            [FieldDefinition(name: "fine", type: .string), FieldDefinition(name: "n", type: .integer, defaultValue: "many")],
            (0...100).map { FieldDefinition(name: "f\($0)", type: .string) },
            [],
        ]
        for fields in refused {
            #expect(throws: StoreError.self, "\(fields.map(\.name))") {
                try store.schema.addFields(fields, service: Contract.service, layer: 0)
            }
        }
        #expect(try store.schema.layer(service: Contract.service, id: 0).definition.fields == before)
        #expect(throws: StoreError.layerNotFound(service: Contract.service, layer: 7)) {
            try store.schema.addFields([FieldDefinition(name: "fine", type: .string)], service: Contract.service, layer: 7)
        }
        // Nothing was half added: the first field's name is still free.
        let layer = try store.schema.addFields([FieldDefinition(name: "fine", type: .string)], service: Contract.service, layer: 0)
        #expect(layer.definition.fields.map(\.name) == before.map(\.name) + ["fine"])
    }

    @Test(arguments: ContractBackend.all)
    func theLayersOfAVersionedServiceAreRefused(_ backend: ContractBackend) throws {
        let (store, _) = try backend.fresh()
        var versioned = pointLayerService(name: "Branches")
        versioned.isVersioned = true
        _ = try store.schema.createService(versioned)
        #expect(throws: StoreError.self) { try store.schema.addFields(Self.added, service: "Branches", layer: 0) }
        #expect(try store.schema.layer(service: "Branches", id: 0).definition.fields == versioned.layers[0].fields)
    }

    @Test func anotherPostgreSQLProcessSeesTheAddedFields() throws {
        let first = try TestPostgres.makeBackend(clock: ManualClock())
        defer { first.close() }
        _ = try first.schema.createService(pointLayerService(name: Contract.service))
        let second = try PostgresBackend(first.pool.location, maximumConnections: 2)
        defer { second.close() }
        #expect(try second.schema.layer(service: Contract.service, id: 0).definition.field(named: "inspected") == nil)
        _ = try first.schema.addFields(Self.added, service: Contract.service, layer: 0)
        #expect(try second.schema.layer(service: Contract.service, id: 0).definition.fields.suffix(3) == Self.added[...])
        try second.edits.insert(
            [FeatureRow(attributes: ["label": "there", "inspected": "by the second"], geometry: .point(Point(x: 1, y: 1)))],
            service: Contract.service, layer: 0)
        #expect(try Self.values(first, "inspected") == ["there": "by the second"])
    }
}
