import OutpostGeometry
import OutpostWire

/// Who makes an edit, for editor tracking and change tracking.
public struct EditContext: Sendable, Equatable {
    /// The user name written to editor-tracking fields (nil when anonymous).
    public var editor: String?
    /// The replica whose sync made the edit (nil for online edits).
    public var replicaId: String?

    public init(editor: String? = nil, replicaId: String? = nil) {
        self.editor = editor
        self.replicaId = replicaId
    }
}

/// The answer to an `applyEdits`.
public struct EditOutcome: Sendable, Equatable {
    public var layers: [LayerEditResults]
    public var editMoment: Int64
    /// The generation the edits were stamped with; nil when nothing was committed.
    public var generation: Int64?

    public init(layers: [LayerEditResults], editMoment: Int64, generation: Int64? = nil) {
        self.layers = layers
        self.editMoment = editMoment
        self.generation = generation
    }
}

/// A feature to insert: attribute values by field name and an OGC geometry.
public struct FeatureRow: Sendable {
    public var attributes: [String: JSONValue]
    public var geometry: OGCGeometry?

    public init(attributes: [String: JSONValue], geometry: OGCGeometry? = nil) {
        self.attributes = attributes
        self.geometry = geometry
    }
}
