import Crypto
import Foundation
import Hummingbird
import OutpostIdentity
import OutpostStorage
import OutpostWire

/// Single sign-on with the organisation's OpenID provider (`serve --oidc-issuer`,
/// docs/identity.md): the sign-in page's "Sign in with …" goes to `oauth2/oidc/start`, which
/// sends the browser to the provider (code flow, PKCE, nonce); the provider sends it back to
/// `oauth2/oidc/callback`, where the code is exchanged, the ID token verified, the user found
/// or created, and the portal's own authorization finished as a password sign-in finishes it.
extension OAuthController {
    /// The button of a sign-in page below `base` whose state is `state`, when configured.
    func singleSignOn(base: String, state: String?) -> SignInPage.SingleSignOn? {
        guard let oidc, let state else { return nil }
        return SignInPage.SingleSignOn(
            name: oidc.settings.name, address: base + "/sharing/oauth2/oidc/start?oauth_state=" + FormURLEncoding.percentEncode(state))
    }

    /// Where the provider sends the browser back: one address, registered at the provider.
    func oidcCallback(_ request: Request, base: String) -> String {
        origin.of(request) + base + "/sharing/oauth2/oidc/callback"
    }

    /// `oauth2/oidc/start?oauth_state=…`: the portal's sign-in state opened (and the browser's
    /// cookie matched, as `signIn` does), then a 302 to the provider's authorization endpoint.
    func startSingleSignOn(_ request: Request, _ c: OutpostRequestContext) async throws -> Response {
        let base = OAuthEndpoints.base(of: request.uri.path)
        guard let oidc else { throw ArcGISError.notFound("Single sign-on") }
        let now = store.clock.milliseconds()
        let text = c.form.parameters.string("oauth_state")
        let opened: OpenedSignIn
        do {
            opened = try await openSignIn(text, request, now: now)
        } catch {
            return singleSignOnRefused(error, base: base, opened: nil)
        }
        do {
            let metadata = try await oidc.metadata(now: now)
            let (verifier, nonce) = (OIDCSignInState.newSecret(), OIDCSignInState.newSecret())
            let state = try OIDCSignInState(portalState: opened.text, verifier: verifier, nonce: nonce, issued: now).sealed(key: opened.key)
            let location = metadata.authorizationURL(
                clientId: oidc.settings.clientId, redirectURI: oidcCallback(request, base: base), state: state, nonce: nonce,
                codeChallenge: PKCE.challenge(of: verifier))
            return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
        } catch {
            return singleSignOnRefused(error, base: base, opened: opened)
        }
    }

    /// `oauth2/oidc/callback?code&state` (or `?error&state`): the provider's answer. Any failure
    /// is the sign-in page again (400) with what went wrong; nothing is created or issued.
    func finishSingleSignOn(_ request: Request, _ c: OutpostRequestContext) async throws -> Response {
        let p = c.form.parameters
        let base = OAuthEndpoints.base(of: request.uri.path)
        guard let oidc else { throw ArcGISError.notFound("Single sign-on") }
        let now = store.clock.milliseconds()
        let state: OIDCSignInState
        let opened: OpenedSignIn
        do {
            guard let text = p.string("state") else { throw OAuthRefusal.invalidRequest("state is required: sign in again") }
            let key = try await StoreCall.run { try store.oauth.sealingKey() }
            state = try OIDCSignInState.open(text, key: key, now: now)
            opened = try await openSignIn(state.portalState, request, now: now)
        } catch {
            // A refusal is said even without its state (some providers leave it out).
            return singleSignOnRefused(p.string("error").map { providerRefused($0, p) } ?? error, base: base, opened: nil)
        }
        do {
            if let refused = p.string("error") { throw providerRefused(refused, p) }
            guard let code = p.string("code"), code.utf8.count <= 4096 else { throw OAuthRefusal.invalidRequest("The provider sent no code") }
            let metadata = try await oidc.metadata(now: now)
            let idToken = try await oidc.exchange(
                code: code, redirectURI: oidcCallback(request, base: base), verifier: state.verifier, metadata: metadata)
            let claims = try await oidc.verify(idToken, metadata: metadata, nonce: state.nonce, now: now)
            let mapped = try oidc.settings.mapping.user(from: claims)
            let approval = origin.of(request) + base + "/sharing/oauth2/approval"
            let asked = opened.state.request
            let location = try await StoreCall.run {
                try grant(asked, to: try signedOnUser(mapped, claims), minutes: asked.minutes, approvalURL: approval)
            }
            return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
        } catch {
            return singleSignOnRefused(error, base: base, opened: opened)
        }
    }

    /// The provider's `error` (`access_denied`, …) as the page says it.
    func providerRefused(_ error: String, _ p: RequestParameters) -> ArcGISError {
        let said = p.string("error_description").map { ": \($0.prefix(200))" } ?? ""
        return OAuthRefusal.invalidRequest("\(oidc?.settings.name ?? "The provider") did not sign you in (\(error.prefix(60))\(said))")
    }

    /// The user a verified sign-in names: the stored one, when it was created by this
    /// provider for this `sub` (its role stays as stored: an administrator's change outlives
    /// the next sign-in); else a new one with the mapped role. A name held by a local user or
    /// by another of the provider's people is refused: names alone never bind.
    func signedOnUser(_ mapped: ServerUser, _ claims: IDTokenClaims) throws -> ServerUser {
        let password = try boundPassword(claims)
        let taken = ArcGISError(
            kind: .forbidden, message: "The user name \(mapped.name) belongs to another account here: ask an administrator.", details: [])
        if try store.users.user(named: mapped.name) != nil {
            guard let user = try store.users.verify(user: mapped.name, password: password) else { throw taken }
            return user
        }
        do {
            // Derived, not stretched: 256 bits nobody can guess without the backend's key.
            try store.users.addUser(mapped.name, role: mapped.role, password: password, rounds: 1000)
        } catch UserFailure.exists(_) {
            // Another sign-in created it a moment ago: its password tells whose it is.
        }
        guard let user = try store.users.verify(user: mapped.name, password: password) else { throw taken }
        return user
    }

    /// The password of the user the provider's `iss` and `sub` sign in as: HMAC-SHA256 under
    /// the backend's sealing key, hex. Nobody is told it; it binds the name to that person.
    func boundPassword(_ claims: IDTokenClaims) throws -> String {
        let message = Data("outpost-oidc-user\u{0}\(claims.issuer)\u{0}\(claims.subject)".utf8)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: try store.oauth.sealingKey()))
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// The portal's sign-in state as the page sealed it, its browser's cookie matched.
    struct OpenedSignIn: Sendable {
        var text: String
        var state: SealedState
        var client: OAuthClient
        var title: String
        var key: [UInt8]
        var browserNonce: String
    }

    func openSignIn(_ text: String?, _ request: Request, now: Int64) async throws -> OpenedSignIn {
        guard let text else { throw OAuthRefusal.invalidRequest("oauth_state is required: open the sign-in page again") }
        let portal = origin.address(of: request)
        let opened = try await StoreCall.run {
            let state = try SealedState.open(text, key: try store.oauth.sealingKey(), now: now)
            let (client, title, key) = try checked(state.request, portal: portal)
            return (state, client, title, key)
        }
        guard let nonce = OAuthEndpoints.browserNonce(of: request), Credentials.sameBytes(Array(nonce.utf8), Array(opened.0.browserNonce.utf8))
        else {
            throw OAuthRefusal.invalidRequest(
                "This sign-in did not come from the sign-in page this browser was shown: open the sign-in page again.")
        }
        return OpenedSignIn(text: text, state: opened.0, client: opened.1, title: opened.2, key: opened.3, browserNonce: nonce)
    }

    /// The sign-in page (400) saying why single sign-on failed; with its form (and a fresh
    /// state) when the portal's state was genuine, so the person may try again.
    func singleSignOnRefused(_ error: any Error, base: String, opened: OpenedSignIn?) -> Response {
        let refusal = ArcGISError(answering: error)
        var page = SignInPage(
            appTitle: opened?.title ?? "Outpost", locale: "en", messages: [refusal.message], action: base + "/sharing/oauth2/signin")
        guard let opened,
            let fresh = try? SealedState(request: opened.state.request, issued: store.clock.milliseconds(), browserNonce: opened.browserNonce)
                .sealed(key: opened.key)
        else {
            page.error = refusal.oauthError ?? "invalid_request"
            return page.response(status: .badRequest, redirectOrigin: nil)
        }
        page.clientId = opened.client.id
        page.oauthState = fresh
        page.singleSignOn = singleSignOn(base: base, state: fresh)
        return page.response(status: .badRequest, redirectOrigin: OAuthEndpoints.redirectOrigin(opened.state.request.redirectURI))
    }
}
