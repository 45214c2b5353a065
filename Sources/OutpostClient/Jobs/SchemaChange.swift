/// A layer whose fields the service changed after the geodatabase was made (issue 47): a sync
/// keeps working and merges the fields the file has; the added fields' values reach the
/// device only in a geodatabase downloaded again (Esri's advice for schema changes).
public struct SchemaChange: Sendable, Codable, Equatable {
    public var layerId: Int
    /// The fields the service's layer has and the file's table lacks, in the layer's order.
    public var addedFields: [String]

    public init(layerId: Int, addedFields: [String]) {
        self.layerId = layerId
        self.addedFields = addedFields
    }
}
