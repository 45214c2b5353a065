import OutpostStorage
import OutpostWire

/// The edit use case (`applyEdits`, `addFeatures`, `updateFeatures`, `deleteFeatures`, from
/// any front end): edits DEFAULT, or the named version `version` names on a versioned
/// service (DEFAULT when it names DEFAULT). `context.editor`, the signed-in user or nil, is
/// written to editor-tracking fields either way.
public struct ApplyEdits<Backend: OutpostBackend>: Sendable {
    public let backend: Backend

    public init(backend: Backend) {
        self.backend = backend
    }

    public func apply(
        _ edits: [LayerEdits], options: EditOptions, service: String, version: String? = nil, context: EditContext
    ) throws -> EditOutcome {
        if let version, !version.isEmpty, try backend.versions.version(service: service, named: version).map({ !$0.isDefault }) ?? true {
            return try backend.versions.applyVersionEdits(service: service, version: version, edits: edits, options: options, context: context)
        }
        return try backend.edits.applyEdits(service: service, edits: edits, options: options, context: context)
    }
}
