import Foundation
import OutpostSync
import OutpostWire

/// Which layers take their attachments offline.
public enum ReturnLayerAttachmentOption: String, Sendable, Codable, Equatable, CaseIterable {
    case none, allLayers, readOnlyLayers, editableLayers

    func includes(editable: Bool) -> Bool {
        switch self {
        case .none: false
        case .allLayers: true
        case .readOnlyLayers: !editable
        case .editableLayers: editable
        }
    }
}

/// The rows of a table related to the map's layers: only those related to the features taken, or all.
public enum DestinationTableRowFilter: String, Sendable, Codable, Equatable { case relatedOnly, all }

/// What becomes of layers that cannot go offline.
public enum OnlineOnlyServicesOption: String, Sendable, Codable, Equatable {
    /// Left out of the offline map.
    case exclude
    /// Kept, still reading the service.
    case include
    /// Kept if the map's author listed them in `connectedOnlineLayers`, else left out.
    case useAuthoredSettings
}

/// How an offline map keeps current.
public enum GenerateOfflineMapUpdateMode: String, Sendable, Codable, Equatable {
    /// Each geodatabase is a registered replica and syncs.
    case syncWithFeatureServices
    /// Snapshots: no replica is registered on the server.
    case noUpdates
}

/// The offline map's own item description.
public struct OfflineMapItemInfo: Sendable, Codable, Equatable {
    public var title: String
    public var snippet: String
    public var description: String
    public var tags: [String]
    /// An image (PNG or JPEG) for the offline map; nil: the web map item's own thumbnail.
    public var thumbnail: Data?

    public init(title: String, snippet: String = "", description: String = "", tags: [String] = [], thumbnail: Data? = nil) {
        self.title = title
        self.snippet = snippet
        self.description = description
        self.tags = tags
        self.thumbnail = thumbnail
    }
}

/// What `GenerateOfflineMapJob` takes offline and how, after the ArcGIS Maps SDKs'
/// `GenerateOfflineMapParameters`; `OfflineMapTask.makeDefaultGenerateOfflineMapParameters`
/// fills it from the map's offline settings (offline-maps.md §1.3).
public struct GenerateOfflineMapParameters: Sendable, Codable, Equatable {
    public var areaOfInterest: Envelope
    public var areaSpatialReference: SpatialReference
    /// The most zoomed-out scale to take (a larger number); 0: the map's.
    public var minScale: Double
    /// The most zoomed-in scale; 0: the map's.
    public var maxScale: Double
    public var includeBasemap = true
    public var returnLayerAttachmentOption = ReturnLayerAttachmentOption.allLayers
    /// For editable layers' attachments: `bidirectional` or `upload`.
    public var attachmentSyncDirection = AttachmentsSyncDirection.bidirectional
    /// Editable layers come empty (their schema only).
    public var returnSchemaOnlyForEditableLayers = false
    /// Layers' `definitionExpression`s filter what is taken.
    public var definitionExpressionFilterEnabled = true
    public var destinationTableRowFilter = DestinationTableRowFilter.relatedOnly
    public var onlineOnlyServicesOption = OnlineOnlyServicesOption.exclude
    public var updateMode = GenerateOfflineMapUpdateMode.syncWithFeatureServices
    /// A failing layer is reported (`layerErrors`) while the others are taken; off, it stops the job.
    public var continueOnErrors = true
    /// A tile package already on the device used as the basemap instead of exporting one.
    public var referenceBasemapDirectory: URL?
    public var referenceBasemapFilename: String?
    public var itemInfo: OfflineMapItemInfo?

    public init(areaOfInterest: Envelope, areaSpatialReference: SpatialReference = .wgs84, minScale: Double = 0, maxScale: Double = 0) {
        self.areaOfInterest = areaOfInterest
        self.areaSpatialReference = areaSpatialReference
        self.minScale = minScale
        self.maxScale = maxScale
    }
}

extension GenerateOfflineMapParameters {
    /// The defaults for a map: its authored offline settings (`applicationProperties.offline`,
    /// offline-maps.md §1.3, read by `WebMapOfflineSettings`), or the SDKs' defaults when it has none.
    public init(
        defaultsFor webMap: JSONValue, areaOfInterest: Envelope, areaSpatialReference: SpatialReference = .wgs84, minScale: Double = 0,
        maxScale: Double = 0
    ) {
        self.init(areaOfInterest: areaOfInterest, areaSpatialReference: areaSpatialReference, minScale: minScale, maxScale: maxScale)
        let offline = WebMapOfflineSettings(webMap: webMap)
        guard offline.isAuthored else { return }
        onlineOnlyServicesOption = .useAuthoredSettings
        returnSchemaOnlyForEditableLayers = offline.schemaOnlyForEditableLayers
        returnLayerAttachmentOption =
            switch (offline.downloadsAttachments(editable: true), offline.downloadsAttachments(editable: false)) {
            case (true, true): .allLayers
            case (true, false): .editableLayers
            case (false, true): .readOnlyLayers
            case (false, false): .none
            }
        attachmentSyncDirection = offline.attachmentsSyncDirection
        referenceBasemapFilename = offline.referenceBasemapName
    }
}
