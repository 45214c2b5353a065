extension APIKeyScope {
    /// The caller a token of this scope signs in, an app token's (slot `APIKeySlot.appToken`,
    /// `client_credentials`) included: a key's as `user(named:role:)`; an app token at most a
    /// viewer, and scoped like the app's keys unless the app configures neither privileges nor
    /// referrers, when it reads what its owner may (ArcGIS: "all items of app owner can be
    /// accessed if the privileges list is not configured"), as app tokens did before keys.
    public func appTokenUser(named name: String, role: UserRole) -> ServerUser {
        guard slot == APIKeySlot.appToken else { return user(named: name, role: role) }
        guard !privileges.isEmpty || !httpReferrers.isEmpty else { return ServerUser(name: name, role: min(role, .viewer)) }
        return user(named: name, role: min(role, .viewer))
    }
}
