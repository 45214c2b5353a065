import OutpostWire

/// What every backend checks of an edit request before any write: the capabilities the
/// service grants (ArcGIS's rules).
public enum EditRules {
    public static func checkCapabilities(_ service: ServiceDefinition, edits: LayerEdits) throws {
        let capabilities = Set(service.capabilities.map { $0.lowercased() })
        func require(_ name: String, _ needed: Bool) throws {
            if needed && !capabilities.contains(name.lowercased()) {
                throw ArcGISError(
                    kind: .unsupported, message: "Unable to complete operation.",
                    details: ["The service does not allow \(name) (capabilities: \(service.capabilities.joined(separator: ",")))."])
            }
        }
        try require("Create", !edits.adds.isEmpty)
        try require("Update", !edits.updates.isEmpty)
        try require("Delete", !edits.deletes.isEmpty || edits.deleteQuery != nil)
        if let attachments = edits.attachments, !attachments.isEmpty {
            try checkCapabilities(
                service, attachmentAdd: attachments.updates.isEmpty && attachments.deletes.isEmpty,
                attachmentUpdate: !attachments.updates.isEmpty || !attachments.deletes.isEmpty)
        }
    }

    public static func checkCapabilities(_ service: ServiceDefinition, attachmentAdd: Bool = false, attachmentUpdate: Bool = false) throws {
        let capabilities = Set(service.capabilities.map { $0.lowercased() })
        // ArcGIS: adding needs Create or Update; changing or deleting needs Update.
        let allowed = attachmentAdd ? (capabilities.contains("create") || capabilities.contains("update")) : capabilities.contains("update")
        if !allowed {
            throw ArcGISError(
                kind: .unsupported, message: "Unable to complete operation.",
                details: ["The service does not allow attachment edits (capabilities: \(service.capabilities.joined(separator: ",")))."])
        }
    }
}
