import Foundation
import OutpostGeoPackage
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// What a replica file holds, whichever backend wrote it.
@Suite struct ExportContractTests {
    func plan(service: ServiceDefinition) throws -> ReplicaPlan {
        let request = try CreateReplicaRequest.parse(RequestParameters([("layers", "0")]))
        return try ReplicaPlanner.plan(request, service: service, replicaId: GlobalID.make(), owner: "", takenNames: [], now: 0)
    }

    /// Dates are stored as epoch milliseconds and written into a GeoPackage as DATETIME text,
    /// on every backend (SpatiaLite's copy inside SQLite converts them in SQL).
    @Test(arguments: SyncContractBackend.all)
    func aDateIsDateTimeTextInTheGeoPackage(_ backend: SyncContractBackend) throws {
        let store = try backend.make(ManualClock())
        let service = try store.schema.createService(
            ServiceDefinition(
                name: "Dated", spatialReference: .wgs84,
                layers: [
                    LayerDefinition(
                        id: 0, name: "Visits", kind: .featureLayer, geometryType: .point, spatialReference: .wgs84,
                        fields: LayerDefinition.withSystemFields([FieldDefinition(name: "seen", type: .date)]))
                ]))
        let moment: Int64 = 1_764_072_000_123  // 2025-11-25T12:00:00.123Z
        try store.edits.insert(
            [
                FeatureRow(attributes: ["seen": .int(moment)], geometry: .point(Point(x: 1, y: 1))),
                FeatureRow(attributes: [:], geometry: .point(Point(x: 2, y: 2))),
            ], service: "Dated", layer: 0)
        let path = NSTemporaryDirectory() + "dated-\(UUID().uuidString).gpkg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try store.sync.exportReplica(
            try plan(service: service.definition), to: .geoPackage(path: path), serviceURL: "", serviceJSON: .null, layerJSON: [:],
            phase: { _ in })
        let seen = try ReplicaFile.open(path, readonly: true).read { db in
            try String?.fetchAll(db, sql: "SELECT seen FROM Visits ORDER BY OBJECTID")
        }
        #expect(seen == ["2025-11-25T12:00:00.123Z", nil])
    }
}
