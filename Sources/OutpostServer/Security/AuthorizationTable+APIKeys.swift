import OutpostStorage

/// What an API key reaches, row by row (docs/identity.md, "API keys: what a key reaches"):
/// `Row.apiKeys` says it and `APIKeyReachMiddleware` enforces it by the row of the route the
/// router matched; `AuthorizationTableTests` sends a key to every route.
extension AuthorizationTable {
    /// What an API key reaches on a route.
    public enum KeyReach: String, Sendable, CaseIterable {
        /// A service's resource: only below a service whose item the key reaches
        /// (FeatureServer, VersionManagementServer, replicafiles, MapServer,
        /// VectorTileServer); anything else under a service (GPServer) is refused.
        case services
        /// The portal's reads and the web map viewer: the items the key reaches
        /// (`PortalCaller.maySee`); it changes nothing and sees no one's folders.
        case items
        /// Refused to keys as such (403 "Token is valid but access is denied."): the
        /// portal's changes, the services directory, export output folders, app management.
        case refused
        /// The route reads no token: a key is answered as anyone is.
        case open

        /// What keys reach on a mount with an admission, unless a row says otherwise.
        public static func of(_ mount: Mount, _ admission: Admission) -> KeyReach {
            switch (mount, admission) {
            case (_, .open): .open
            case (.service, _): .services
            case (.portal, .identifies), (.arcgis, .identifies): .items
            default: .refused
            }
        }
    }
}

extension AuthorizationTable.Refusal {
    /// A route refused to API keys, or a service out of a key's reach (ArcGIS's answer).
    public static let keyDenied = AuthorizationTable.Refusal(403, APIKeyReachMiddleware.deniedMessage)
}

extension AuthorizationTable.Row {
    /// What an API key `caller` gets for what it reaches, before the method and the right:
    /// refused on a `.refused` route, and below a service out of its scope.
    func keyRefusal(caller: ServerUser?, subject: AuthorizationTable.Subject?) -> AuthorizationTable.Refusal? {
        guard caller?.apiKey != nil else { return nil }
        switch apiKeys {
        case .refused: return .keyDenied
        case .services: return subject?.inKeyScope == true ? nil : .keyDenied
        case .items, .open: return nil
        }
    }

    /// On the portal's reads an API key manages nothing: no item is its to change, no
    /// folder its to see (below a service it manages what its owner made).
    func keyChangesNothing(_ caller: ServerUser?) -> Bool {
        caller?.apiKey != nil && apiKeys == .items
    }
}
