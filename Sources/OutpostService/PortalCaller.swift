import OutpostStorage
import OutpostWire

/// Who asks the portal, and what they may see and change (docs/portal.md, "Sharing").
/// Items are shared as features are guarded: with token security on, an anonymous caller
/// sees public items only; with it off, an anonymous caller is the operator.
public enum PortalCaller: Sendable, Equatable {
    /// Token security is off and no token was given: everything.
    case unrestricted
    /// Token security is on and no token was given: public items, read only.
    case anonymous
    case user(ServerUser)

    public init(user: ServerUser?, securityOn: Bool) {
        if let user { self = .user(user) } else { self = securityOn ? .anonymous : .unrestricted }
    }

    /// The same caller as the replica use cases know it: nobody can manage a replica for an
    /// anonymous caller (an administrators' replica is the closest: only they may).
    public var asReplicaCaller: Caller {
        switch self {
        case .unrestricted: .unrestricted
        case .anonymous: Caller(user: ServerUser(name: "", role: .viewer))
        case .user(let user): Caller(user: user)
        }
    }

    /// The user's name, if any.
    public var name: String? {
        if case .user(let user) = self { return user.name }
        return nil
    }

    private func owns(_ owner: String) -> Bool {
        guard case .user(let user) = self else { return false }
        return user.role == .admin || owner.caseInsensitiveCompare(user.name) == .orderedSame
    }

    /// Whether the caller may find and read `item` (search, item, data, resources, related items).
    public func maySee(_ item: PortalItem) -> Bool {
        switch self {
        case .unrestricted: true
        case .anonymous: item.access == .public
        case .user: item.access != .private || owns(item.owner)
        }
    }

    /// Whether the caller may update, share or delete `item`, or change its resources and
    /// relationships: its owner and administrators.
    public func mayChange(_ item: PortalItem) -> Bool {
        self == .unrestricted || owns(item.owner)
    }

    /// Whether the caller may add items to `owner`'s content: the owner, if an editor or an
    /// administrator, and administrators for anyone. Viewers create nothing.
    public func mayCreate(for owner: String) -> Bool {
        switch self {
        case .unrestricted: true
        case .anonymous: false
        case .user(let user): user.role == .admin || (user.role == .editor && owner.caseInsensitiveCompare(user.name) == .orderedSame)
        }
    }

    /// Whether the caller may see `owner`'s folders.
    public func maySeeFolders(of owner: String) -> Bool {
        self == .unrestricted || owns(owner)
    }
}
