import OutpostWire

/// A web map author's offline settings, `applicationProperties.offline` (offline-maps.md §1.3),
/// with the defaults the web map specification documents for what the map leaves out. Read
/// alike by the client (`GenerateOfflineMapParameters(defaultsFor:)`, `OfflineMapPlanner`)
/// and by SetupMapArea (`PackagePlanner`).
public struct WebMapOfflineSettings: Sendable, Equatable {
    /// `editableLayers.download`: what an editable layer takes offline.
    public enum EditableDownload: String, Sendable, Equatable, CaseIterable {
        /// The schema only: the layer comes empty.
        case none
        /// Features without their attachments.
        case features
        case featuresAndAttachments
    }

    /// `editableLayers.sync`: how an editable layer's features and attachments sync.
    public enum EditableSync: String, Sendable, Equatable, CaseIterable {
        case uploadFeaturesAndAttachments, syncFeaturesAndAttachments, syncFeaturesUploadAttachments
    }

    /// The map has an `offline` object at all: its author chose (the client then keeps online
    /// only the layers named in `connectedOnlineLayers`).
    public var isAuthored: Bool
    public var editableDownload: EditableDownload
    public var editableSync: EditableSync
    /// `readonlyLayers.downloadAttachments`.
    public var readOnlyDownloadsAttachments: Bool
    /// `offlinebasemap.referenceBasemapName`: a tile package already on the device.
    public var referenceBasemapName: String?
    /// `connectedOnlineLayers[].id`: the layers that stay online.
    public var connectedOnlineLayers: Set<String>

    /// The settings of a map without any: everything taken, attachments both ways.
    public init() {
        isAuthored = false
        editableDownload = .featuresAndAttachments
        editableSync = .syncFeaturesAndAttachments
        readOnlyDownloadsAttachments = true
        referenceBasemapName = nil
        connectedOnlineLayers = []
    }

    /// The settings of a web map's JSON. A missing value takes its default; an unknown
    /// `download` counts as `features` (arcgis-rest-js writes it `featuers`), an unknown `sync`
    /// as not syncing attachments both ways: neither takes more than the author can have meant.
    public init(webMap: JSONValue) {
        self.init()
        guard let offline = webMap["applicationProperties"]?["offline"], case .object = offline else { return }
        isAuthored = true
        if let download = offline["editableLayers"]?["download"]?.stringValue {
            editableDownload = EditableDownload(rawValue: download) ?? .features
        }
        if let sync = offline["editableLayers"]?["sync"]?.stringValue {
            editableSync = EditableSync(rawValue: sync) ?? .syncFeaturesUploadAttachments
        }
        readOnlyDownloadsAttachments = offline["readonlyLayers"]?["downloadAttachments"]?.boolValue ?? true
        if let name = offline["offlinebasemap"]?["referenceBasemapName"]?.stringValue, !name.isEmpty { referenceBasemapName = name }
        connectedOnlineLayers = Set((offline["connectedOnlineLayers"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue })
    }

    /// Editable layers come empty (`download: none`).
    public var schemaOnlyForEditableLayers: Bool { editableDownload == .none }

    /// Whether layers of this kind take their attachments offline.
    public func downloadsAttachments(editable: Bool) -> Bool {
        editable ? editableDownload == .featuresAndAttachments : readOnlyDownloadsAttachments
    }

    /// The attachment direction asked for editable layers: both ways only with
    /// `syncFeaturesAndAttachments`, else up only (attachments made on the device still go).
    public var attachmentsSyncDirection: AttachmentsSyncDirection {
        editableSync == .syncFeaturesAndAttachments ? .bidirectional : .upload
    }
}
