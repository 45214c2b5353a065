/// What a user may do (`docs/reliability.md`, Access control).
public enum UserRole: String, Sendable, Equatable, CaseIterable, Comparable {
    /// Reads, and download-only replicas of their own.
    case viewer
    /// Edits, syncs and replicas of their own.
    case editor
    /// Everything, every replica.
    case admin

    public static func < (a: UserRole, b: UserRole) -> Bool {
        let order: [UserRole] = [.viewer, .editor, .admin]
        return order.firstIndex(of: a)! < order.firstIndex(of: b)!
    }
}

public struct ServerUser: Sendable, Equatable {
    public var name: String
    /// The most the caller may do now: the user's role, capped by the token's (an app's
    /// token, an API key's `APIKeyScope.roleCap`).
    public var role: UserRole
    /// Set when the token is an API key's: what it reaches (nil for a user's own token).
    public var apiKey: APIKeyScope?

    public init(name: String, role: UserRole, apiKey: APIKeyScope? = nil) {
        self.name = name
        self.role = role
        self.apiKey = apiKey
    }
}
