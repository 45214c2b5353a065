import OutpostSync
import OutpostWire
import Testing

/// The offline rules the client's offline maps and SetupMapArea's packages share: a web map's
/// offline settings with their defaults (offline-maps.md §1.3), when a layer is editable
/// offline, and what a replica does with attachments (docs/client.md, docs/map-areas.md).
@Suite struct OfflineRulesTests {
    static func webMap(offline: JSONValue?) -> JSONValue {
        guard let offline else { return ["operationalLayers": []] }
        return ["operationalLayers": [], "applicationProperties": ["offline": offline]]
    }

    struct SettingsCase: CustomTestStringConvertible, Sendable {
        var name: String
        var offline: JSONValue?
        var authored = true
        var download = WebMapOfflineSettings.EditableDownload.featuresAndAttachments
        var sync = WebMapOfflineSettings.EditableSync.syncFeaturesAndAttachments
        var readOnlyAttachments = true
        var basemap: String?
        var connected: Set<String> = []
        var testDescription: String { name }
    }

    static let settings: [SettingsCase] = [
        SettingsCase(name: "no offline settings: every default", offline: nil, authored: false),
        SettingsCase(name: "offline settings that are not an object", offline: "yes", authored: false),
        SettingsCase(name: "an empty object: authored, every default", offline: [:]),
        SettingsCase(name: "download none", offline: ["editableLayers": ["download": "none"]], download: .none),
        SettingsCase(name: "download features", offline: ["editableLayers": ["download": "features"]], download: .features),
        SettingsCase(name: "download featuresAndAttachments", offline: ["editableLayers": ["download": "featuresAndAttachments"]]),
        SettingsCase(name: "download misspelt as arcgis-rest-js does", offline: ["editableLayers": ["download": "featuers"]], download: .features),
        SettingsCase(name: "download not a string", offline: ["editableLayers": ["download": 3]]),
        SettingsCase(
            name: "sync uploadFeaturesAndAttachments", offline: ["editableLayers": ["sync": "uploadFeaturesAndAttachments"]],
            sync: .uploadFeaturesAndAttachments),
        SettingsCase(
            name: "sync syncFeaturesUploadAttachments", offline: ["editableLayers": ["sync": "syncFeaturesUploadAttachments"]],
            sync: .syncFeaturesUploadAttachments),
        SettingsCase(name: "sync syncFeaturesAndAttachments", offline: ["editableLayers": ["sync": "syncFeaturesAndAttachments"]]),
        SettingsCase(name: "sync unknown", offline: ["editableLayers": ["sync": "sometimes"]], sync: .syncFeaturesUploadAttachments),
        SettingsCase(
            name: "read-only layers without attachments", offline: ["readonlyLayers": ["downloadAttachments": false]], readOnlyAttachments: false),
        SettingsCase(name: "read-only layers with attachments", offline: ["readonlyLayers": ["downloadAttachments": true]]),
        SettingsCase(name: "a reference basemap", offline: ["offlinebasemap": ["referenceBasemapName": "Local.tpkx"]], basemap: "Local.tpkx"),
        SettingsCase(name: "an empty reference basemap name", offline: ["offlinebasemap": ["referenceBasemapName": ""]]),
        SettingsCase(
            name: "layers kept online", offline: ["connectedOnlineLayers": [["id": "wms"], ["id": "roads"], ["title": "no id"]]],
            connected: ["wms", "roads"]),
    ]

    @Test(arguments: settings) func aMapsOfflineSettingsAndTheirDefaults(_ row: SettingsCase) {
        let read = WebMapOfflineSettings(webMap: Self.webMap(offline: row.offline))
        #expect(read.isAuthored == row.authored)
        #expect(read.editableDownload == row.download && read.editableSync == row.sync)
        #expect(read.readOnlyDownloadsAttachments == row.readOnlyAttachments)
        #expect(read.referenceBasemapName == row.basemap && read.connectedOnlineLayers == row.connected)
        if !row.authored { #expect(read == WebMapOfflineSettings()) }
    }

    /// (download, readonlyLayers.downloadAttachments) → (schema only, editable layers' attachments, read-only layers').
    static let downloads: [(WebMapOfflineSettings.EditableDownload, Bool, Bool, Bool, Bool)] = [
        (.none, true, true, false, true),
        (.none, false, true, false, false),
        (.features, true, false, false, true),
        (.features, false, false, false, false),
        (.featuresAndAttachments, true, false, true, true),
        (.featuresAndAttachments, false, false, true, false),
    ]

    @Test(arguments: downloads.indices) func whatEachKindOfLayerTakes(_ row: Int) {
        let (download, readOnly, schemaOnly, editableAttachments, readOnlyAttachments) = Self.downloads[row]
        var settings = WebMapOfflineSettings()
        settings.editableDownload = download
        settings.readOnlyDownloadsAttachments = readOnly
        #expect(settings.schemaOnlyForEditableLayers == schemaOnly)
        #expect(settings.downloadsAttachments(editable: true) == editableAttachments)
        #expect(settings.downloadsAttachments(editable: false) == readOnlyAttachments)
    }

    @Test func onlySyncFeaturesAndAttachmentsSyncsAttachmentsBothWays() {
        let directions = WebMapOfflineSettings.EditableSync.allCases.map { sync -> AttachmentsSyncDirection in
            var settings = WebMapOfflineSettings()
            settings.editableSync = sync
            return settings.attachmentsSyncDirection
        }
        #expect(directions == [.upload, .bidirectional, .upload])
    }

    /// Every combination of the edit capabilities (with `Query` and `Sync` beside them):
    /// editable offline only with adds, updates and deletes all allowed, or `Editing`.
    static let capabilities: [(String, Bool)] = [
        ("Query,Sync", false),
        ("Query,Create,Sync", false),
        ("Query,Update,Sync", false),
        ("Query,Delete,Sync", false),
        ("Query,Create,Update,Sync", false),
        ("Query,Create,Delete,Sync", false),
        ("Query,Update,Delete,Sync", false),
        ("Query,Create,Update,Delete,Sync", true),
        ("Query,Editing,Sync", true),
        ("Query,Create,Editing,Sync", true),
        ("Query,Update,Editing,Sync", true),
        ("Query,Delete,Editing,Sync", true),
        ("Query,Create,Update,Editing,Sync", true),
        ("Query,Create,Delete,Editing,Sync", true),
        ("Query,Update,Delete,Editing,Sync", true),
        ("Query,Create,Update,Delete,Editing,Sync", true),
        ("Create, Update , Delete", true),
        ("", false),
        ("Create,Update,Deleted", false),
    ]

    @Test(arguments: capabilities.indices) func aLayerIsEditableOfflineWithAddsUpdatesAndDeletesAllowed(_ row: Int) {
        let (text, editable) = Self.capabilities[row]
        #expect(LayerCapabilities(text: text).isEditableOffline == editable)
        #expect(LayerCapabilities(text.split(separator: ",").map(String.init)).isEditableOffline == editable, "from a service definition's list")
    }

    /// (editable, attachments downloaded for such layers, direction asked) → (returnAttachments, attachmentsSyncDirection).
    static let attachments: [(Bool, Bool, AttachmentsSyncDirection, Bool, AttachmentsSyncDirection)] = [
        (true, true, .bidirectional, true, .bidirectional),
        (true, true, .upload, true, .upload),
        (true, true, .none, false, .none),
        (true, false, .bidirectional, false, .upload),
        (true, false, .upload, false, .upload),
        (true, false, .none, false, .none),
        (false, true, .bidirectional, true, .bidirectional),
        (false, true, .upload, true, .bidirectional),
        (false, true, .none, true, .bidirectional),
        (false, false, .bidirectional, false, .none),
        (false, false, .upload, false, .none),
        (false, false, .none, false, .none),
    ]

    @Test(arguments: attachments.indices) func aReplicasAttachmentsFollowEditabilityWhatIsTakenAndTheDirectionAsked(_ row: Int) {
        let (editable, downloaded, asked, returned, synced) = Self.attachments[row]
        #expect(
            OfflineAttachments(editable: editable, downloaded: downloaded, asked: asked)
                == OfflineAttachments(returnAttachments: returned, syncDirection: synced))
    }
}
