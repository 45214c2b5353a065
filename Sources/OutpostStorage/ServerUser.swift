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
    public var role: UserRole

    public init(name: String, role: UserRole) {
        self.name = name
        self.role = role
    }
}
