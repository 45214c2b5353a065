import Foundation
import OutpostClient
import OutpostGeometry
import OutpostSpatiaLite
import OutpostWire
import Testing

/// The replica's layer definitions carry the layer's subtypes, so an add made offline takes
/// its subtype's defaults and every offline edit meets its subtype's domains, as on the server
/// (docs/import.md, "Subtypes").
@Suite struct OfflineSubtypeTests {
    /// Pipes by `kind`: distribution mains (the default) default to PVC of 8 and allow only 2
    /// to 12 in diameter; transmission mains allow any material.
    static func water() throws -> ServiceDefinition {
        let material = FieldDomain.codedValue(name: "Material", codes: [.init(name: "PVC", code: "PVC"), .init(name: "Ductile iron", code: "DI")])
        return ServiceDefinition(
            name: "Water",
            layers: [
                LayerDefinition(
                    id: 0, name: "Pipes", kind: .featureLayer, geometryType: .point, spatialReference: .wgs84,
                    fields: LayerDefinition.withSystemFields([
                        FieldDefinition(name: "kind", type: .smallInteger),
                        FieldDefinition(name: "material", type: .string, domain: material.json),
                        FieldDefinition(name: "diameter", type: .double),
                    ]),
                    subtypes: LayerSubtypes(
                        field: "kind", defaultCode: 1,
                        subtypes: [
                            .init(
                                code: 1, name: "Distribution", defaultValues: ["material": "PVC", "diameter": 8],
                                domains: ["diameter": FieldDomain.range(name: "SmallDiameter", minimum: 2, maximum: 12).json]),
                            .init(code: 2, name: "Transmission", domains: ["material": .null]),
                        ]))
            ])
    }

    @Test func anOfflineEditTakesItsSubtypesDefaultsAndMeetsItsDomains() async throws {
        try await withLiveServer { demo, store, device in
            _ = try store.schema.createService(try Self.water())
            let url = demo.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Water/FeatureServer")
            let task = GeodatabaseSyncTask(url: url)
            var parameters = try await task.makeDefaultGenerateGeodatabaseParameters(extent: treeCorner)
            parameters.returnAttachments = false
            parameters.attachmentsSyncDirection = .none
            let job = task.makeGenerateGeodatabaseJob(parameters: parameters, downloadFileURL: URL(fileURLWithPath: "\(device)/water.gpkg"))
            job.pollInterval = .milliseconds(20)
            job.start()
            let geodatabase = try await job.output
            defer { geodatabase.close() }
            let pipes = try geodatabase.featureTable(layerId: 0)
            // Read back from the layer resource, "no material domain" included.
            #expect(pipes.subtypes == (try Self.water()).layers[0].subtypes)
            let here = Geometry.point(Point(x: 13.21, y: 52.41))
            let distribution = try geodatabase.add(LocalFeature(attributes: [:], geometry: here), to: pipes)
            #expect(distribution["kind"] == 1 && distribution["material"] == "PVC" && distribution["diameter"]?.doubleValue == 8)
            #expect(throws: ClientError.self) {
                try geodatabase.add(LocalFeature(attributes: ["kind": 1, "diameter": 20], geometry: here), to: pipes)
            }
            #expect(throws: ClientError.self) { try geodatabase.add(LocalFeature(attributes: ["kind": 5], geometry: here), to: pipes) }
            let transmission = try geodatabase.add(
                LocalFeature(attributes: ["kind": 2, "material": "Copper", "diameter": 30], geometry: here), to: pipes)
            // A partial update meets the domains of the subtype the feature keeps.
            #expect(throws: ClientError.self) {
                try geodatabase.update(LocalFeature(attributes: ["GlobalID": distribution["GlobalID"]!, "diameter": 20]), in: pipes)
            }
            try geodatabase.update(LocalFeature(attributes: ["GlobalID": transmission["GlobalID"]!, "diameter": 40]), in: pipes)
            #expect(try geodatabase.localEditCount == 2)
            // The server takes what the device took.
            let result = try await sync(task, geodatabase)
            #expect(result.failedEdits.isEmpty && result.editsUploaded == 2)
            var query = LayerQuery()
            query.outFields = ["kind", "material", "diameter"]
            guard case .features(let page) = try store.features.query(query, service: "Water", layer: 0) else {
                throw ClientError.geodatabase("no page")
            }
            let rows = page.features.map { feature in
                let row = Dictionary(uniqueKeysWithValues: zip(page.fields.map(\.name), feature.attributes))
                return ["kind", "material", "diameter"].map { row[$0] ?? .null }
            }
            #expect(rows == [[1, "PVC", 8.0], [2, "Copper", 40.0]])
        }
    }
}
