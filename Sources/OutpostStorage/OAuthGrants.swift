import OutpostWire

/// What an authorization code stands for until it is exchanged, once, at `oauth2/token`
/// (docs/identity.md).
public struct AuthorizationGrant: Sendable, Equatable {
    /// The client the code was issued to (`pythonapi`, a registered app's client id).
    public var clientId: String
    /// The `redirect_uri` of the authorization request: the exchange must repeat it.
    public var redirectURI: String
    /// The user who signed in.
    public var user: String
    /// PKCE (RFC 7636): the S256 challenge the exchange's `code_verifier` must hash to; nil
    /// when the request sent none.
    public var codeChallenge: String?
    /// Minutes the access token should live (`expiration` of the authorization request).
    public var minutes: Int

    public init(clientId: String, redirectURI: String, user: String, codeChallenge: String?, minutes: Int) {
        self.clientId = clientId
        self.redirectURI = redirectURI
        self.user = user
        self.codeChallenge = codeChallenge
        self.minutes = minutes
    }
}

/// Who a refresh token signs in, for which client.
public struct RefreshGrant: Sendable, Equatable {
    public var clientId: String
    public var user: String
    /// Minutes each access token it buys lives.
    public var minutes: Int

    public init(clientId: String, user: String, minutes: Int) {
        self.clientId = clientId
        self.user = user
        self.minutes = minutes
    }
}

/// An `Application` item registered as an OAuth 2.0 client (`oauth2/registerApp`).
public struct RegisteredApp: Sendable, Equatable {
    /// 16 letters and digits, as ArcGIS's client ids.
    public var clientId: String
    /// The `Application` item it belongs to; its owner owns the app.
    public var itemId: String
    public var owner: String
    /// `browser`, `native`, `server`, `multiple` or `apikey`, as `registerApp` takes it.
    public var appType: String
    /// Where the authorization may send the browser back to (exact matches).
    public var redirectURIs: [String]
    public var registered: Int64
    public var modified: Int64
    /// What the app's API keys reach (`APIKeyScope`), as registered or updated.
    public var privileges: [String]
    /// Pages whose `Referer` may carry the app's API keys; empty: any.
    public var httpReferrers: [String]
    /// The expiration dates set for the `apiToken` slots 1 and 2 (milliseconds since 1970;
    /// nil: none set, the longest applies), by `updateItem`'s `apiToken1ExpirationDate` and
    /// `apiToken2ExpirationDate`.
    public var apiTokenExpirations: [Int64?]

    public init(
        clientId: String, itemId: String, owner: String, appType: String, redirectURIs: [String], registered: Int64, modified: Int64,
        privileges: [String] = [], httpReferrers: [String] = [], apiTokenExpirations: [Int64?] = [nil, nil]
    ) {
        self.clientId = clientId
        self.itemId = itemId
        self.owner = owner
        self.appType = appType
        self.redirectURIs = redirectURIs
        self.registered = registered
        self.modified = modified
        self.privileges = privileges
        self.httpReferrers = httpReferrers
        self.apiTokenExpirations = apiTokenExpirations
    }
}

/// A live API key token of an app, as its owner's listing shows it (never the token itself).
public struct APIKeySlot: Sendable, Equatable {
    /// 0: the app's single `apiKey`; 1 or 2: an `apiToken` slot.
    public var slot: Int
    public var expires: Int64

    public init(slot: Int, expires: Int64) {
        self.slot = slot
        self.expires = expires
    }

    /// The slot kept with an app token (`issueAppToken`): scoped like a key, not a key's slot.
    public static let appToken = 3
}

/// A sign-in as the portal keeps it: a refresh-token family (docs/identity.md, "Sessions").
public struct SignInSession: Sendable, Equatable {
    /// The family's id (not a credential: ending it needs the user's or an admin's rights).
    public var family: String
    public var clientId: String
    public var user: String
    /// When its first refresh token was issued, and its latest (milliseconds since 1970).
    public var started: Int64
    public var renewed: Int64
    /// When its live refresh token ends.
    public var expires: Int64

    public init(family: String, clientId: String, user: String, started: Int64, renewed: Int64, expires: Int64) {
        self.family = family
        self.clientId = clientId
        self.user = user
        self.started = started
        self.renewed = renewed
        self.expires = expires
    }
}

/// What presenting a refresh token came to.
public enum RefreshOutcome: Sendable, Equatable {
    /// Valid, and still valid after this use (`grant_type=refresh_token`, as ArcGIS answers it:
    /// a new access token, the same refresh token).
    case valid(RefreshGrant)
    /// Valid: it is spent, and `token` (same family, a fresh expiry) replaces it.
    case rotated(RefreshGrant, token: String, expires: Int64)
    /// Spent already by an exchange: a copy is in someone else's hands, so the whole family
    /// (every refresh token exchanged from the same sign-in) is revoked with it (OAuth 2.0
    /// Security BCP, 4.14.2).
    case reused
    case expired
    /// Unknown, revoked, or issued to another client.
    case unknown
}

/// A presented refresh token as a backend reads it inside its write, before using or
/// exchanging it: refused with its outcome (a spent one has revoked its family by then), or
/// live, with its family and grant.
public enum PresentedRefreshToken: Sendable, Equatable {
    case refused(RefreshOutcome)
    case live(family: String, RefreshGrant)
}

/// The portal's OAuth 2.0 records: authorization codes, refresh tokens, access tokens of a
/// client, and the key that seals a sign-in's state.
///
/// Contract: app secrets, codes and refresh tokens are stored only hashed (as access tokens are); a code is
/// taken at most once, by one caller, even when several processes race for it; a spent
/// refresh token presented again revokes its family; signing out ends the user's access and
/// refresh tokens of that client (of every client when nil) on every process; all of it by the
/// backend's clock.
public protocol OAuthGrantStore: Sendable {
    /// Registers an app; the hash of `secret` is kept to check it, and `sealedSecret` (the
    /// secret sealed by the server, `Sealing`), when given, so its owner can read it again as
    /// ArcGIS shows it. `PortalFailure.invalid` when the item is registered already.
    func registerApp(_ app: RegisteredApp, secret: String, sealedSecret: String?) throws
    /// The app's secret as sealed at registration; nil for apps registered before it was kept.
    func sealedSecret(clientId: String) throws -> String?
    /// Replaces what is not nil, and the app's `modified`.
    func updateApp(clientId: String, privileges: [String]?, httpReferrers: [String]?, redirectURIs: [String]?) throws
    /// Sets the expiration date of `slot` (1 or 2) for tokens generated from now on; nil: none.
    func setAPITokenExpiration(clientId: String, slot: Int, expires: Int64?) throws
    /// Every registered app of `owner` (every owner's when nil), by registration.
    func apps(owner: String?) throws -> [RegisteredApp]

    /// Keeps `token` (hashed) as the API key token of the app's `slot` (0, 1 or 2), naming the
    /// app's owner `user`, until `expires`; the slot's previous token ends in the same write
    /// (one live token per slot). `sealed`: the token sealed by the server, kept for slot 0 so
    /// its owner can read the `apiKey` again. `UserDirectory.check(token:)` then answers the
    /// owner with the app's `APIKeyScope` (privileges read at each check; unknown once the app
    /// is removed).
    func issueAPIKeyToken(_ token: String, clientId: String, slot: Int, user: String, expires: Int64, sealed: String?) throws
    /// A new app token (`client_credentials` without `apiToken`) of the app, naming its owner
    /// `user`, valid for `minutes`: kept with slot 3, so `UserDirectory.check(token:)` answers
    /// it with the app's `APIKeyScope` (`slot` 3) like a key, and at most a viewer. Not a key
    /// slot: many live at once, `apiKeySlots` and `sealedAPIKey` ignore them, signing out leaves
    /// them; they end with the app, `revokeAPIKeyTokens(slot: nil)`, their owner, or revoked.
    func issueAppToken(clientId: String, user: String, minutes: Int) throws -> (token: String, expires: Int64)
    /// Ends the token of `slot` (every slot's, app tokens' too, when nil); whether one was live.
    @discardableResult func revokeAPIKeyTokens(clientId: String, slot: Int?) throws -> Bool
    /// The app's live API key tokens, by slot (0, 1, 2; never its app tokens).
    func apiKeySlots(clientId: String) throws -> [APIKeySlot]
    /// The sealed `apiKey` (slot 0) while it is live.
    func sealedAPIKey(clientId: String) throws -> String?
    func app(clientId: String) throws -> RegisteredApp?
    func app(itemId: String) throws -> RegisteredApp?
    /// Whether `secret` is the app's (compared in constant time); false for an unknown app.
    func verifyAppSecret(clientId: String, secret: String) throws -> Bool
    func updateRedirectURIs(clientId: String, _ uris: [String]) throws
    /// Removes the app with its codes, refresh and access tokens (its item was deleted).
    func removeApp(clientId: String) throws

    /// Keeps `code` (hashed) for `grant` until `expires` (milliseconds since 1970).
    func saveCode(_ code: String, grant: AuthorizationGrant, expires: Int64) throws
    /// The grant of `code`, removing it: nil when it is unknown, taken already or expired.
    func takeCode(_ code: String) throws -> AuthorizationGrant?

    /// A new refresh token of a new family, valid for `minutes`.
    func issueRefreshToken(_ grant: RefreshGrant, minutes: Int) throws -> (token: String, expires: Int64)
    /// The grant of `token` for `clientId`, which stays valid (`grant_type=refresh_token`).
    /// A token spent by an exchange and presented again revokes its family (`.reused`).
    func useRefreshToken(_ token: String, clientId: String) throws -> RefreshOutcome
    /// Spends `token` for `clientId` and hands out its successor (valid for `minutes` from now):
    /// `grant_type=exchange_refresh_token`.
    func rotateRefreshToken(_ token: String, clientId: String, minutes: Int) throws -> RefreshOutcome
    /// Revokes a refresh token and its family, with the access tokens issued from it; whether
    /// there was one.
    @discardableResult func revokeRefreshToken(_ token: String) throws -> Bool

    /// A new access token for `user` issued to `clientId`, valid for `minutes`: a token of the
    /// user directory (`UserDirectory.check(token:)` accepts it), which carries at most
    /// `user.role` whatever the user's role becomes. `refreshToken`: the refresh token (or the
    /// refresh token issued with it) whose family it joins, so revoking the family (a reuse,
    /// `revokeRefreshToken`) ends it too.
    func issueAccessToken(for user: ServerUser, clientId: String, minutes: Int, refreshToken: String?) throws -> (token: String, expires: Int64)
    /// Revokes an access token; whether there was one.
    @discardableResult func revokeAccessToken(_ token: String) throws -> Bool
    /// Ends `user`'s access and refresh tokens of `clientId` (every client's when nil).
    func signOut(user: String, clientId: String?) throws

    /// The live sign-ins: refresh-token families with a token neither spent nor expired, of
    /// `user` (without case; everyone's when nil), the most recently renewed first.
    func sessions(user: String?) throws -> [SignInSession]
    /// Ends the sign-in `family` (of `user` only, when given) with the access tokens issued
    /// from it; whether there was one.
    @discardableResult func endSession(family: String, user: String?) throws -> Bool

    /// 32 random bytes made on first use and kept, the same for every process of the backend:
    /// the key that seals `oauth_state` (`SealedState`).
    func sealingKey() throws -> [UInt8]
}
