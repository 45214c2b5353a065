import ArgumentParser
import OutpostServer

/// `serve`'s single sign-on options (docs/identity.md, "Single sign-on"): the organisation's
/// OpenID provider and this portal's client at it. Each also from the environment and the
/// config file, as every `serve` option.
struct OIDCOptions: ParsableArguments {
    @Option(name: .long, help: "Sign in with this OpenID Connect provider (its issuer URL, e.g. https://id.example.org/realms/staff).")
    var oidcIssuer: String?
    @Option(name: .long, help: "This portal's client id at the OpenID provider.") var oidcClientId: String?
    @Option(name: .long, help: "This portal's client secret at the OpenID provider.") var oidcClientSecret: String?
    @Option(name: .long, help: "The provider's name on the sign-in page's button, \"Sign in with NAME\" (default: single sign-on).")
    var oidcName: String?
    @Option(name: .long, help: "The ID token claim naming the user (default preferred_username, else email's name, else sub).")
    var oidcUsernameClaim: String?
    @Option(name: .long, help: "The ID token claim holding the role (viewer, editor, admin) given at a user's first sign-in (default: viewer).")
    var oidcRoleClaim: String?

    /// The settings from the first layer that has each; nil without an issuer.
    func resolve(_ layers: inout LayeredSettings) throws -> OIDCSettings? {
        let issuer = try layers.optionalString("oidc-issuer", oidcIssuer)
        let clientId = try layers.optionalString("oidc-client-id", oidcClientId)
        let secret = try layers.optionalString("oidc-client-secret", oidcClientSecret)
        let name = try layers.optionalString("oidc-name", oidcName)
        let usernameClaim = try layers.optionalString("oidc-username-claim", oidcUsernameClaim)
        let roleClaim = try layers.optionalString("oidc-role-claim", oidcRoleClaim)
        guard let issuer else {
            if clientId != nil || secret != nil { throw ValidationError("oidc-client-id and oidc-client-secret go with oidc-issuer.") }
            return nil
        }
        guard let clientId, !clientId.isEmpty, let secret, !secret.isEmpty else {
            throw ValidationError("oidc-issuer needs oidc-client-id and oidc-client-secret.")
        }
        guard
            issuer.hasPrefix("https://") || issuer.hasPrefix("http://127.0.0.1") || issuer.hasPrefix("http://localhost")
                || issuer.hasPrefix("http://[::1]")
        else { throw ValidationError("oidc-issuer must be an https:// URL (http:// only on the loopback address), got '\(issuer)'.") }
        return OIDCSettings(
            issuer: issuer, clientId: clientId, clientSecret: secret, name: name ?? "single sign-on", usernameClaim: usernameClaim,
            roleClaim: roleClaim)
    }
}
