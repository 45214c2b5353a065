/// What a FeatureServer says about itself that a sync task needs: the part of the service
/// resource (`FeatureServiceMetadata.serviceJSON`) a client reads, parsed from any server.
public struct FeatureServiceInfo: Sendable, Equatable {
    public struct LayerSummary: Sendable, Equatable, Codable {
        public var id: Int
        public var name: String
        public var isTable: Bool

        public init(id: Int, name: String, isTable: Bool) {
            self.id = id
            self.name = name
            self.isTable = isTable
        }
    }

    public var syncEnabled: Bool
    public var supportsPerLayerSync: Bool
    public var supportsPerReplicaSync: Bool
    public var supportsSyncDirectionControl: Bool
    public var supportsAttachmentsSyncDirection: Bool
    public var supportsRegisteringExistingData: Bool
    public var layers: [LayerSummary]
    public var spatialReference: SpatialReference?
    public var fullExtent: Envelope?

    public init(json: JSONValue) {
        let capabilities = SyncCapabilities(json: json["syncCapabilities"] ?? .null)
        syncEnabled = json["syncEnabled"]?.boolValue ?? (json["capabilities"]?.stringValue?.contains("Sync") ?? false)
        supportsPerLayerSync = capabilities.supportsPerLayerSync
        supportsPerReplicaSync = capabilities.supportsPerReplicaSync
        supportsSyncDirectionControl = capabilities.supportsSyncDirectionControl
        supportsAttachmentsSyncDirection = capabilities.supportsAttachmentsSyncDirection
        supportsRegisteringExistingData = capabilities.supportsRegisteringExistingData
        func summaries(_ key: String, table: Bool) -> [LayerSummary] {
            (json[key]?.arrayValue ?? []).compactMap { item in
                guard let id = item["id"]?.int64Value else { return nil }
                return LayerSummary(id: Int(id), name: item["name"]?.stringValue ?? "\(id)", isTable: table)
            }
        }
        layers = summaries("layers", table: false) + summaries("tables", table: true)
        spatialReference = (json["spatialReference"]?["latestWkid"]?.int64Value ?? json["spatialReference"]?["wkid"]?.int64Value)
            .map { SpatialReference(wkid: Int($0)) }
        if let e = json["fullExtent"], let xmin = e["xmin"]?.doubleValue, let ymin = e["ymin"]?.doubleValue,
            let xmax = e["xmax"]?.doubleValue, let ymax = e["ymax"]?.doubleValue
        {
            fullExtent = Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
        }
    }
}
