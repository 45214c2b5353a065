import OutpostGeometry
import OutpostWire

/// What a layer query answers, by the kind of question asked.
public enum QueryAnswer: Sendable {
    case features(FeaturePage)
    case count(Int)
    case objectIds([Int64])
    case extent(Envelope, count: Int, spatialReference: SpatialReference)
    /// One row per group (one row without `groupByFieldsForStatistics`), a page of them
    /// (`StatisticsPlan`); `exceededTransferLimit`: more groups follow the page.
    case statistics(fields: [(name: String, type: EsriFieldType)], rows: [[JSONValue]], exceededTransferLimit: Bool)
}

/// A page of features.
public struct FeaturePage: Sendable {
    public var fields: [FieldDefinition]
    public var features: [QueriedFeature]
    public var exceededTransferLimit: Bool
    public var spatialReference: SpatialReference

    public init(fields: [FieldDefinition], features: [QueriedFeature], exceededTransferLimit: Bool, spatialReference: SpatialReference) {
        self.fields = fields
        self.features = features
        self.exceededTransferLimit = exceededTransferLimit
        self.spatialReference = spatialReference
    }
}

/// One feature of a query page: attribute values in the page's field order, and geometry.
public struct QueriedFeature: Sendable {
    public var attributes: [JSONValue]
    public var geometry: OGCGeometry?

    public init(attributes: [JSONValue], geometry: OGCGeometry? = nil) {
        self.attributes = attributes
        self.geometry = geometry
    }
}
