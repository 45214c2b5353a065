import Foundation
import OutpostWire

/// Per-service parameters to change before `GenerateOfflineMapJob` runs, after the ArcGIS Maps
/// SDKs' `GenerateOfflineMapParameterOverrides`: made by
/// `OfflineMapTask.makeGenerateOfflineMapParameterOverrides(parameters:)` from the plan, edited,
/// then given to `makeGenerateOfflineMapJob(parameters:downloadDirectory:overrides:)`. Keyed by
/// `OfflineMapParametersKey` (the service a layer reads: every layer of a feature service
/// shares its replica, as in the SDKs).
public struct GenerateOfflineMapParameterOverrides: Sendable, Equatable {
    public var generateGeodatabaseParameters: [OfflineMapParametersKey: GenerateGeodatabaseParameters]
    /// Raster and vector tile services alike (`exportTileCacheParameters`, `exportVectorTilesParameters`).
    public var exportTileCacheParameters: [OfflineMapParametersKey: ExportTileCacheParameters]
}

/// The service a map layer takes offline with.
public struct OfflineMapParametersKey: Sendable, Hashable, CustomStringConvertible {
    public var serviceURL: String
    public init(serviceURL: String) { self.serviceURL = serviceURL }
    public var description: String { serviceURL }
}

extension OfflineMapTask {
    /// The child jobs' parameters the plan would use, to be changed before the job is made.
    public func makeGenerateOfflineMapParameterOverrides(
        parameters: GenerateOfflineMapParameters
    ) async throws
        -> GenerateOfflineMapParameterOverrides
    {
        let plan = try await offlineMapCapabilities(parameters: parameters)
        return GenerateOfflineMapParameterOverrides(
            generateGeodatabaseParameters: Dictionary(
                plan.geodatabases.map { (OfflineMapParametersKey(serviceURL: $0.serviceURL), $0.parameters) }, uniquingKeysWith: { a, _ in a }),
            exportTileCacheParameters: Dictionary(
                plan.tileCaches.map { (OfflineMapParametersKey(serviceURL: $0.serviceURL), $0.parameters) }, uniquingKeysWith: { a, _ in a }))
    }
}

extension OfflineMapPlan {
    /// The plan with the overrides' parameters in place of its own (services the plan does
    /// not take are ignored: overrides change how, not what).
    func applying(_ overrides: GenerateOfflineMapParameterOverrides?) -> OfflineMapPlan {
        guard let overrides else { return self }
        var plan = self
        for index in plan.geodatabases.indices {
            if let given = overrides.generateGeodatabaseParameters[OfflineMapParametersKey(serviceURL: plan.geodatabases[index].serviceURL)] {
                plan.geodatabases[index].parameters = given
            }
        }
        for index in plan.tileCaches.indices {
            if let given = overrides.exportTileCacheParameters[OfflineMapParametersKey(serviceURL: plan.tileCaches[index].serviceURL)] {
                plan.tileCaches[index].parameters = given
            }
        }
        return plan
    }
}
