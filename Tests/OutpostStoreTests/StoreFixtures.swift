import Foundation
import OutpostStorage
import OutpostStore
import OutpostWire

/// A store in a fresh temporary folder.
func makeTemporaryStore() throws -> FeatureStore {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-test-\(UUID().uuidString)").path
    return try FeatureStore(dataDirectory: directory)
}

/// The repository's testdata folder.
let testdataDirectory: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("testdata").path
}()

func pointLayerService(name: String, wkid: Int = 4326, maxRecordCount: Int = 1000) -> ServiceDefinition {
    ServiceDefinition(name: name, spatialReference: SpatialReference(wkid: wkid), maxRecordCount: maxRecordCount, layers: [
        LayerDefinition(id: 0, name: "Points", kind: .featureLayer, geometryType: .point, spatialReference: SpatialReference(wkid: wkid),
                        fields: LayerDefinition.withSystemFields([
                            FieldDefinition(name: "label", type: .string, length: 20),
                            FieldDefinition(name: "value", type: .integer),
                        ]), maxRecordCount: maxRecordCount),
    ])
}
