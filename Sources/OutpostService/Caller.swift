import OutpostStorage

/// Who asks for a use case: a signed-in user, or nobody (token security off, or the CLI on
/// the data folder, which is the operator).
public struct Caller: Sendable, Equatable {
    public var user: ServerUser?

    public init(user: ServerUser?) {
        self.user = user
    }

    /// The operator at the command line, or anyone while token security is off.
    public static let unrestricted = Caller(user: nil)

    /// Whether the caller may sync, read, or unregister a replica (or its job and result
    /// file) owned by `owner`: its owner and administrators do; with no user (security off)
    /// everyone does. A replica without an owner (made before security was on) is the
    /// administrators' (`docs/decisions.md`, Hardening). An API key manages its owner's
    /// alone, whatever their role: what it makes is its owner's.
    public func mayManage(owner: String) -> Bool {
        guard let user else { return true }
        let admin = user.role == .admin && user.apiKey == nil
        return admin || (!owner.isEmpty && owner.caseInsensitiveCompare(user.name) == .orderedSame)
    }
}
