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

    /// Whether the caller is an API key's (docs/identity.md, "API keys: what a key reaches").
    public var isAPIKey: Bool {
        if case .user(let user) = self { return user.apiKey != nil }
        return false
    }

    /// The caller is `owner`, or an administrator: never through an API key, which acts as
    /// its owner alone whatever their role.
    private func owns(_ owner: String) -> Bool {
        guard case .user(let user) = self else { return false }
        let named = owner.caseInsensitiveCompare(user.name) == .orderedSame
        return named || (user.role == .admin && user.apiKey == nil)
    }

    /// Whether the caller may find and read `item` (search, item, data, resources, related
    /// items, the web map viewer). An API key: public items, and of the others those its
    /// privileges reach (`APIKeyScope.reaches`) that its owner may see.
    public func maySee(_ item: PortalItem) -> Bool {
        switch self {
        case .unrestricted: return true
        case .anonymous: return item.access == .public
        case .user(let user):
            let shared = item.access != .private || owns(item.owner)
            guard let scope = user.apiKey else { return shared }
            return item.access == .public || (shared && scope.reaches(itemId: item.id, owner: item.owner, keyOwner: user.name))
        }
    }

    /// Whether the caller may update, share or delete `item`, or change its resources and
    /// relationships: its owner and administrators; never an API key.
    public func mayChange(_ item: PortalItem) -> Bool {
        self == .unrestricted || (!isAPIKey && owns(item.owner))
    }

    /// Whether the caller may add items to `owner`'s content: the owner, if an editor or an
    /// administrator, and administrators for anyone. Viewers and API keys create nothing.
    public func mayCreate(for owner: String) -> Bool {
        switch self {
        case .unrestricted: true
        case .anonymous: false
        case .user(let user):
            user.apiKey == nil && (user.role == .admin || (user.role == .editor && owner.caseInsensitiveCompare(user.name) == .orderedSame))
        }
    }

    /// Whether the caller may see `owner`'s folders: never through an API key.
    public func maySeeFolders(of owner: String) -> Bool {
        self == .unrestricted || (!isAPIKey && owns(owner))
    }
}
