import Hummingbird
import OutpostIdentity
import OutpostStorage
import OutpostWire

/// `oauth2/token`, `oauth2/revokeToken` and `oauth2/signout`. Refusals are ArcGIS envelopes
/// that carry OAuth's `error` too (`OAuthRefusal`); a refused exchange issues nothing.
extension OAuthController {
    /// `oauth2/token`: a code (once, for its client and `redirect_uri`, with PKCE's verifier
    /// when it had a challenge), a refresh token (used as it is, or exchanged for a successor),
    /// or a registered app's secret.
    func token(_ c: OutpostRequestContext) async throws -> Response {
        let p = c.form.parameters
        let asked = try TokenRequest.parse(p)
        let minutes = OAuthEndpoints.minutes(p.string("expiration"))
        let answer = try await StoreCall.run { try exchange(asked, minutes: minutes) }
        var response = RESTResponse.json(.object(answer), parameters: p)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    func exchange(_ asked: TokenRequest, minutes: Int?) throws -> JSONObject {
        switch asked {
        case .authorizationCode(let clientId, let code, let redirectURI, let verifier, let secret):
            let client = try knownClient(clientId)
            if let secret {
                guard case .registered = client, try store.oauth.verifyAppSecret(clientId: clientId, secret: secret) else {
                    throw OAuthRefusal.invalidClient("Invalid client_secret")
                }
            }
            // Taken before it is checked: a code presented with the wrong client, address or
            // verifier is spent all the same (RFC 6749, 4.1.2), so it cannot be tried again.
            guard let grant = try store.oauth.takeCode(code) else { throw OAuthRefusal.invalidGrant("Invalid or expired authorization code") }
            guard grant.clientId == clientId else { throw OAuthRefusal.invalidGrant("The authorization code was issued to another client") }
            guard grant.redirectURI == redirectURI else { throw OAuthRefusal.invalidGrant("redirect_uri differs from the authorization request's") }
            if let challenge = grant.codeChallenge {
                guard let verifier, PKCE.verify(verifier, challenge: challenge) else { throw OAuthRefusal.invalidGrant("Invalid code_verifier") }
            } else if verifier != nil {
                throw OAuthRefusal.invalidGrant("code_verifier without a code_challenge in the authorization request")
            }
            guard let user = try store.users.user(named: grant.user) else { throw OAuthRefusal.invalidGrant("The user signed in no longer exists") }
            let minutes = capped(grant.minutes)
            let refresh = try store.oauth.issueRefreshToken(
                RefreshGrant(clientId: clientId, user: user.name, minutes: minutes), minutes: OAuthEndpoints.refreshMinutes)
            let access = try store.oauth.issueAccessToken(for: user, clientId: clientId, minutes: minutes, refreshToken: refresh.token)
            return tokenAnswer(access.token, minutes: minutes, user: user.name, refresh: refresh.token)
        case .refreshToken(let clientId, let token):
            _ = try knownClient(clientId)
            let grant = try refreshGrant(try store.oauth.useRefreshToken(token, clientId: clientId))
            guard let user = try store.users.user(named: grant.user) else { throw OAuthRefusal.invalidGrant("The user signed in no longer exists") }
            let minutes = capped(grant.minutes)
            let access = try store.oauth.issueAccessToken(for: user, clientId: clientId, minutes: minutes, refreshToken: token)
            return tokenAnswer(access.token, minutes: minutes, user: user.name, refresh: nil)
        case .exchangeRefreshToken(let clientId, let token):
            _ = try knownClient(clientId)
            let outcome = try store.oauth.rotateRefreshToken(token, clientId: clientId, minutes: OAuthEndpoints.refreshMinutes)
            let grant = try refreshGrant(outcome)
            guard case .rotated(_, let successor, _) = outcome else { throw OAuthRefusal.invalidGrant("Invalid refresh_token") }
            guard let user = try store.users.user(named: grant.user) else {
                try store.oauth.revokeRefreshToken(successor)
                throw OAuthRefusal.invalidGrant("The user signed in no longer exists")
            }
            let minutes = capped(grant.minutes)
            let access = try store.oauth.issueAccessToken(for: user, clientId: clientId, minutes: minutes, refreshToken: successor)
            return tokenAnswer(access.token, minutes: minutes, user: user.name, refresh: successor)
        case .clientCredentials(let clientId, let secret):
            guard let app = try store.oauth.app(clientId: clientId), try store.oauth.verifyAppSecret(clientId: clientId, secret: secret) else {
                throw OAuthRefusal.invalidClient("Invalid client_id or client_secret")
            }
            guard let owner = try store.users.user(named: app.owner) else { throw OAuthRefusal.invalidClient("The app's owner is no longer a user") }
            // An app token: scoped by the app's privileges and referrers like its keys, and
            // never editing (at most a viewer's role); each call a new one, others stay live.
            let minutes = capped(minutes)
            let access = try store.oauth.issueAppToken(clientId: app.clientId, user: owner.name, minutes: minutes)
            return ["access_token": .string(access.token), "expires_in": .int(Int64(minutes) * 60), "token_type": "Bearer", "ssl": ssl]
        case .apiToken(let clientId, let secret, let slot):
            return try issueAPIToken(clientId: clientId, secret: secret, slot: slot)
        }
    }

    /// The grant of a live refresh token; `invalid_grant` for any other outcome.
    func refreshGrant(_ outcome: RefreshOutcome) throws -> RefreshGrant {
        switch outcome {
        case .valid(let grant), .rotated(let grant, _, _): return grant
        case .reused: throw OAuthRefusal.invalidGrant("The refresh token was exchanged already: every refresh token of its sign-in is revoked")
        case .expired: throw OAuthRefusal.invalidGrant("The refresh token has expired")
        case .unknown: throw OAuthRefusal.invalidGrant("Invalid refresh_token")
        }
    }

    /// A built-in client or a registered app; `invalid_client` otherwise.
    func knownClient(_ id: String) throws -> OAuthClient {
        guard let client = try client(id) else { throw OAuthRefusal.invalidClient() }
        return client
    }

    var ssl: JSONValue { .bool(origin.scheme == "https") }

    /// The token endpoint's answer for a user's sign-in; with a refresh token when one was
    /// issued (a code's exchange, an `exchange_refresh_token`), not for a `refresh_token`.
    func tokenAnswer(_ token: String, minutes: Int, user: String, refresh: String?) -> JSONObject {
        var answer: JSONObject = [
            "access_token": .string(token), "expires_in": .int(Int64(minutes) * 60), "username": .string(user), "ssl": ssl, "token_type": "Bearer",
        ]
        if let refresh {
            answer["refresh_token"] = .string(refresh)
            answer["refresh_token_expires_in"] = .int(Int64(OAuthEndpoints.refreshMinutes) * 60)
        }
        return answer
    }

    /// `oauth2/revokeToken`: `token` (access or refresh; a refresh token takes its family)
    /// of `client_id`, or with `apiToken` the app's token of that slot (its secret required); `{"success":true}` whether or not it existed (RFC 7009, 2.2).
    func revokeToken(_ c: OutpostRequestContext) throws -> Response {
        let p = c.form.parameters
        guard let clientId = p.string("client_id"), try client(clientId) != nil else { throw OAuthRefusal.invalidClient() }
        if let slot = p.string("apiToken") { return try revokeAPIToken(clientId: clientId, slot: slot, p) }
        guard let token = p.string("token"), token.utf8.count <= 256 else { throw OAuthRefusal.invalidRequest("token is required") }
        // An app's token (an API key's) sits in pages anyone reads: holding it is no right to
        // end it. Only its app does, with its secret (RFC 7009, 2.1: the client it was issued to).
        if case .valid(let holder) = try store.users.check(token: token), let scope = holder.apiKey {
            guard clientId == scope.clientId, let secret = p.string("client_secret"), secret.utf8.count <= 256,
                try store.oauth.verifyAppSecret(clientId: clientId, secret: secret)
            else { throw OAuthRefusal.invalidClient("An app's token ends only with its app's client_id and client_secret") }
        }
        if try !store.oauth.revokeRefreshToken(token) { try store.oauth.revokeAccessToken(token) }
        return RESTResponse.json(["success": true], parameters: p)
    }

    /// `oauth2/signout`: the caller's tokens of `client_id` (of every client when absent)
    /// end; then back to `redirect_uri` when the client may be sent there, else `{"success":true}`.
    func signOut(_ request: Request, _ c: OutpostRequestContext) throws -> Response {
        let p = c.form.parameters
        let clientId = p.string("client_id")
        if let user = c.user { try store.oauth.signOut(user: user.name, clientId: clientId) }
        let base = OAuthEndpoints.base(of: request.uri.path)
        let forget = "\(OAuthEndpoints.cookie)=; Path=\(base)/sharing; Max-Age=0; HttpOnly; SameSite=Lax"
        if let uri = p.string("redirect_uri"), uri != OAuthClient.outOfBand, let clientId, let client = try client(clientId),
            client.allowsRedirect(to: uri, portal: origin.address(of: request))
        {
            return Response(status: .found, headers: [.location: uri, .cacheControl: "no-store", .setCookie: forget])
        }
        var response = RESTResponse.json(["success": true], parameters: p)
        response.headers[.setCookie] = forget
        return response
    }
}
