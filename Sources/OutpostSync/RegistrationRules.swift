import OutpostWire

/// What the store knows about the replica a registration names (`replicaOptions.refReplicaId`).
public struct RegistrationFacts: Sendable, Equatable {
    public var serviceIsVersioned: Bool
    /// The replica the copy was made from (canonical id); nil when the request names none.
    public var referenceId: String?
    /// The first replica of its line: the reference itself, or the original it was registered
    /// as a copy of.
    public var originId: String?
    /// Which of the two have ever been unregistered.
    public var unregistered: Set<String>

    public init(serviceIsVersioned: Bool, referenceId: String?, originId: String?, unregistered: Set<String>) {
        self.serviceIsVersioned = serviceIsVersioned
        self.referenceId = referenceId
        self.originId = originId
        self.unregistered = unregistered
    }
}

/// ArcGIS's rules for registering existing data (Runtime `registerSyncEnabledGeodatabase`),
/// each a row of docs/sync-semantics.md:
/// - registering is not supported on a versioned feature service;
/// - a geodatabase once unregistered cannot be registered again;
/// - once the original geodatabase is unregistered, no copy of it can register.
public enum RegistrationRules {
    public static func check(_ facts: RegistrationFacts) throws(ArcGISError) {
        if facts.serviceIsVersioned {
            throw ArcGISError(
                kind: .unsupported, message: "Unable to complete operation.",
                details: ["Registering existing data is not supported on a versioned feature service."])
        }
        guard let reference = facts.referenceId else { return }
        if facts.unregistered.contains(reference) {
            throw ArcGISError(
                kind: .invalidParameter, message: "Unable to complete operation.",
                details: ["Replica '\(reference)' has been unregistered; a geodatabase cannot be registered again once it is unregistered."])
        }
        if let origin = facts.originId, facts.unregistered.contains(origin) {
            throw ArcGISError(
                kind: .invalidParameter, message: "Unable to complete operation.",
                details: ["The original geodatabase '\(origin)' of replica '\(reference)' has been unregistered; no copy of it can be registered."])
        }
    }
}
