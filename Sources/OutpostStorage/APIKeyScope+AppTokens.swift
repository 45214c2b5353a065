extension APIKeyScope {
    /// The caller a token of this scope signs in, an app token's (slot `APIKeySlot.appToken`,
    /// `client_credentials`) included: a key's as `user(named:role:)`; an app token at most a
    /// viewer, always with its scope (`reaches`: naming no item, what its owner may see), so
    /// every rule for keys holds for it (second red-team pass: without the scope, an app
    /// configuring nothing read its owner's keys and signed them out).
    public func appTokenUser(named name: String, role: UserRole) -> ServerUser {
        guard slot == APIKeySlot.appToken else { return user(named: name, role: role) }
        return user(named: name, role: min(role, .viewer))
    }
}
