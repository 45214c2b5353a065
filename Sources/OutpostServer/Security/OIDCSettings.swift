import OutpostIdentity
import OutpostStorage

/// Single sign-on with the organisation's OpenID Connect provider (`serve --oidc-issuer`,
/// docs/identity.md): who the provider is, this portal's client at it, and how its ID
/// tokens name users and roles.
public struct OIDCSettings: Sendable, Equatable {
    /// The provider's issuer, exactly as its discovery document names it.
    public var issuer: String
    public var clientId: String
    public var clientSecret: String
    /// What the sign-in page's button names ("Sign in with NAME").
    public var name: String
    public var mapping: OIDCUserMapping

    public init(
        issuer: String, clientId: String, clientSecret: String, name: String = "single sign-on", usernameClaim: String? = nil,
        roleClaim: String? = nil
    ) {
        self.issuer = issuer
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.name = name
        mapping = OIDCUserMapping(usernameClaim: usernameClaim ?? "preferred_username", roleClaim: roleClaim, defaultRole: .viewer)
    }

    /// `<issuer>/.well-known/openid-configuration` (OpenID Connect Discovery 1.0, 4).
    var discoveryURL: String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
    }
}
