/// A feature service's `syncCapabilities` (§3), both ways: the server encodes what a service
/// supports, clients parse what a server says.
public struct SyncCapabilities: Sendable, Equatable {
    public var supportsAsync = true
    public var supportsRegisteringExistingData = false
    public var supportsSyncDirectionControl = false
    public var supportsPerLayerSync = false
    public var supportsPerReplicaSync = true
    public var supportsSyncModelNone = true
    public var supportsRollbackOnFailure = true
    public var supportsAttachmentsSyncDirection = false
    public var supportsBiDirectionalSyncForServer = false

    public init() {}

    /// What Outpost supports for `service`: versioned services sync per replica with direction
    /// control; non-versioned ones per layer, with registration of existing data.
    public init(for service: ServiceDefinition) {
        supportsRegisteringExistingData = !service.isVersioned
        supportsSyncDirectionControl = service.isVersioned
        supportsPerLayerSync = !service.isVersioned
        supportsPerReplicaSync = service.isVersioned
        supportsAttachmentsSyncDirection = true
    }

    /// `supportsASync` is sent too: some clients read that spelling.
    public var json: JSONValue {
        [
            "supportsAsync": .bool(supportsAsync), "supportsASync": .bool(supportsAsync),
            "supportsRegisteringExistingData": .bool(supportsRegisteringExistingData),
            "supportsSyncDirectionControl": .bool(supportsSyncDirectionControl), "supportsPerLayerSync": .bool(supportsPerLayerSync),
            "supportsPerReplicaSync": .bool(supportsPerReplicaSync), "supportsSyncModelNone": .bool(supportsSyncModelNone),
            "supportsRollbackOnFailure": .bool(supportsRollbackOnFailure),
            "supportsAttachmentsSyncDirection": .bool(supportsAttachmentsSyncDirection),
            "supportsBiDirectionalSyncForServer": .bool(supportsBiDirectionalSyncForServer),
        ]
    }

    /// Absent members take ArcGIS's defaults (per replica, no direction control).
    public init(json: JSONValue) {
        func flag(_ key: String, _ fallback: Bool) -> Bool { json[key]?.boolValue ?? fallback }
        supportsAsync = flag("supportsAsync", json["supportsASync"]?.boolValue ?? true)
        supportsRegisteringExistingData = flag("supportsRegisteringExistingData", false)
        supportsSyncDirectionControl = flag("supportsSyncDirectionControl", false)
        supportsPerLayerSync = flag("supportsPerLayerSync", false)
        supportsPerReplicaSync = flag("supportsPerReplicaSync", true)
        supportsSyncModelNone = flag("supportsSyncModelNone", false)
        supportsRollbackOnFailure = flag("supportsRollbackOnFailure", false)
        supportsAttachmentsSyncDirection = flag("supportsAttachmentsSyncDirection", false)
        supportsBiDirectionalSyncForServer = flag("supportsBiDirectionalSyncForServer", false)
    }
}
