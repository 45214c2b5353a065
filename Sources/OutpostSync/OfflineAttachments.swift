import OutpostWire

/// What a feature service's replica does with attachments when it goes offline
/// (`returnAttachments`, `attachmentsSyncDirection` of `createReplica`), by whether its layers
/// are editable offline (`LayerCapabilities.isEditableOffline`). The client's offline maps
/// (docs/client.md, "Attachments offline") and SetupMapArea's packages (docs/map-areas.md)
/// both make replicas by this rule.
public struct OfflineAttachments: Sendable, Equatable {
    public var returnAttachments: Bool
    public var syncDirection: AttachmentsSyncDirection

    public init(returnAttachments: Bool, syncDirection: AttachmentsSyncDirection) {
        self.returnAttachments = returnAttachments
        self.syncDirection = syncDirection
    }

    /// `downloaded`: attachments of layers like these are taken; `asked`: the direction asked
    /// for editable layers. An editable layer syncs what it took as asked, and without them
    /// still sends new ones up (`upload`); `none` takes none and syncs none (a taken attachment
    /// that never syncs is not a pair `createReplica` accepts). A read-only layer downloads its
    /// attachments (`bidirectional`, the only direction that downloads) or none.
    public init(editable: Bool, downloaded: Bool, asked: AttachmentsSyncDirection) {
        guard editable else {
            self.init(returnAttachments: downloaded, syncDirection: downloaded ? .bidirectional : .none)
            return
        }
        let taken = downloaded && asked != .none
        self.init(returnAttachments: taken, syncDirection: taken ? asked : (asked == .none ? .none : .upload))
    }
}
