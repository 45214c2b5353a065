import OutpostGeometry
import OutpostWire

/// A page's geometries on a quantization grid: what an Esri JSON answer writes instead of
/// coordinates when the query has `quantizationParameters`.
public struct QuantizedPage: Sendable {
    public var grid: QuantizationGrid
    /// One per feature of the page, in order; nil where the feature has no geometry or nothing
    /// of it is left on the grid.
    public var geometries: [QuantizedGeometry?]

    public init(grid: QuantizationGrid, geometries: [QuantizedGeometry?]) {
        self.grid = grid
        self.geometries = geometries
    }
}

extension FeaturePage {
    /// The page's geometries on `grid`, read as a layer of `layerType` holds them.
    public func quantized(on grid: QuantizationGrid, layerType: EsriGeometryType?) throws(ArcGISError) -> QuantizedPage {
        var geometries: [QuantizedGeometry?] = []
        geometries.reserveCapacity(features.count)
        for feature in features {
            guard let geometry = feature.geometry else {
                geometries.append(nil)
                continue
            }
            geometries.append(try grid.quantize(Geometry(ogc: geometry, layerType: layerType)))
        }
        return QuantizedPage(grid: grid, geometries: geometries)
    }
}
