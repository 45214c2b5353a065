import OutpostStorage

/// Who may see and change a named version, as ArcGIS's branch versioning rules it
/// (docs/sync-semantics.md, "Versions"): a version is named `owner.name`; a **private** one is
/// its owner's and administrators' alone (anyone else is told it does not exist), a
/// **protected** one anyone sees but only they edit, reconcile or delete, a **public** one
/// anyone edits and reconciles, and only they delete. Versions named `outpost.…` (made without
/// a user, and replicas' versions) are the administrators'. Without token security everyone
/// may do everything.
extension DataVersion {
    /// The part of the name before its last dot (a version's own name has none; a user's may).
    public var owner: String { name.lastIndex(of: ".").map { String(name[..<$0]) } ?? "" }

    /// The prefix of the versions a caller creates: their name, or `outpost` without one.
    public static func ownerPrefix(for caller: Caller) -> String { caller.user?.name ?? "outpost" }
}

extension Caller {
    private func owns(_ version: DataVersion) -> Bool { mayManage(owner: version.owner == "outpost" ? "" : version.owner) }

    public func maySee(_ version: DataVersion) -> Bool { version.isDefault || version.access != "private" || owns(version) }

    /// Editing through it (`gdbVersion`) and reconciling it.
    public func mayEdit(_ version: DataVersion) -> Bool { version.isDefault || version.access == "public" || owns(version) }

    public func mayDelete(_ version: DataVersion) -> Bool { owns(version) }
}
