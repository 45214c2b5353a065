import OutpostWire

/// A version of a versioned service's data (`docs/sync-semantics.md`, Versioned data).
public struct DataVersion: Sendable, Equatable {
    /// The name of every versioned service's DEFAULT version, as ArcGIS names it.
    public static let defaultName = "sde.DEFAULT"

    public var name: String
    public var parent: String?
    /// The replica syncing through it, for replica versions.
    public var replicaId: String?
    public var access: String
    public var description: String
    public var creationDate: Int64
    /// Its id in the REST API (`VersionManagementServer/versions/<guid>`).
    public var guid: String?
    /// The DEFAULT generation it branched from, or was last posted at.
    public var baseGeneration: Int64 = 0

    public init(
        name: String, parent: String?, replicaId: String?, access: String, description: String, creationDate: Int64,
        guid: String?, baseGeneration: Int64 = 0
    ) {
        self.name = name
        self.parent = parent
        self.replicaId = replicaId
        self.access = access
        self.description = description
        self.creationDate = creationDate
        self.guid = guid
        self.baseGeneration = baseGeneration
    }

    public var isDefault: Bool { parent == nil }

}

public struct VersionPost: Sendable, Equatable {
    public var posted: Int
    public var conflicts: Int
    public var generation: Int64?

    public init(posted: Int, conflicts: Int, generation: Int64?) {
        self.posted = posted
        self.conflicts = conflicts
        self.generation = generation
    }
}
