import Hummingbird
import OutpostIdentity
import OutpostStorage
import OutpostWire

/// The portal's OAuth 2.0 (docs/identity.md, issue 46): the sign-in page (`oauth2/authorize`,
/// `oauth2/signin`, `oauth2/approval`), the token endpoint, revocation and sign-out, and the
/// registration of `Application` items as apps. Every path ends in the user directory's
/// tokens, so `--require-auth`, sharing, roles and the sign-in throttle apply as to
/// `generateToken`'s. The rules are `OutpostIdentity`'s; the records `store.oauth`'s.
struct OAuthController<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let authenticator: Authenticator
    let origin: ServerOrigin
    let requireAuth: Bool
    /// Minutes an access token lives when the request does not say, and at most.
    let defaultMinutes: Int
    let maximumMinutes: Int
    /// The organisation's OpenID provider (`serve --oidc-issuer`); nil: passwords only.
    let oidc: OIDCProvider?

    init(store: Backend, authenticator: Authenticator, options: ServerOptions) {
        self.store = store
        self.authenticator = authenticator
        origin = options.origin
        requireAuth = options.requireAuth
        defaultMinutes = options.tokenMinutes
        maximumMinutes = options.maximumTokenMinutes
        oidc = options.oidc.map(OIDCProvider.init)
    }

    typealias Routes = RouteCollection<OutpostRequestContext>

    /// The routes, relative to each of `OAuthEndpoints.roots`, by the admission they need:
    /// open to anyone, naming the caller by a token, editors'.
    func routes() -> (open: Routes, identified: Routes, editors: Routes) {
        let open = Routes(context: OutpostRequestContext.self)
            .read("oauth2/authorize") { request, c in try await authorize(request, c) }
            .change("oauth2/signin") { request, c in try await signIn(request, c) }
            .change("oauth2/token") { _, c in try await token(c) }
            .change("oauth2/revokeToken", store: { _, c in try revokeToken(c) })
        open.get("oauth2/approval") { _, c in SignInPage.approval(code: c.form.parameters.string("code")) }
        open.get("oauth2/oidc/start") { request, c in try await startSingleSignOn(request, c) }
        open.get("oauth2/oidc/callback") { request, c in try await finishSingleSignOn(request, c) }
        let identified = Routes(context: OutpostRequestContext.self)
            .read("oauth2/signout", store: { request, c in try signOut(request, c) })
            .read("oauth2/apps/:clientId", store: { _, c in try app(c) })
            .read("oauth2/validateApiKey", store: { _, c in try validateApiKey(c) })
        let editors = Routes(context: OutpostRequestContext.self)
            .change("oauth2/registerApp", store: { _, c in try registerApp(c) })
            .change("oauth2/apps/:clientId/update", store: { _, c in try updateApp(c) })
            .change("oauth2/apps/:clientId/resetApiKey", store: { _, c in try resetApiKey(c) })
            .change("oauth2/apps/:clientId/unregister", store: { _, c in try unregister(c) })
        return (open, identified, editors)
    }

    // MARK: - The sign-in page

    /// `oauth2/authorize`: the request checked, the sign-in page with its sealed state, and
    /// the browser's nonce as a cookie. Nothing is stored; nothing wrong is redirected.
    func authorize(_ request: Request, _ c: OutpostRequestContext) async throws -> Response {
        let p = c.form.parameters
        let base = OAuthEndpoints.base(of: request.uri.path)
        let portal = origin.address(of: request)
        let nonce = OAuthEndpoints.browserNonce(of: request) ?? OAuthEndpoints.newNonce()
        let now = store.clock.milliseconds()
        var page = SignInPage(appTitle: "Outpost", locale: OAuthEndpoints.locale(p), action: base + "/sharing/oauth2/signin")
        do {
            let asked = try AuthorizationRequest.parse(p)
            let (client, title, key) = try await StoreCall.run { try checked(asked, portal: portal) }
            page.oauthState = try SealedState(request: asked, issued: now, browserNonce: nonce).sealed(key: key)
            (page.clientId, page.appTitle) = (client.id, title)
            page.singleSignOn = singleSignOn(base: base, state: page.oauthState)
            return page.response(status: .ok, redirectOrigin: OAuthEndpoints.redirectOrigin(asked.redirectURI), cookie: cookie(nonce, base: base))
        } catch {
            // Said on the page, as ArcGIS says it ("Error: Invalid redirect_uri"), never redirected.
            let refusal = ArcGISError(answering: error)
            (page.messages, page.error) = (["Error: " + refusal.message], refusal.oauthError ?? "invalid_request")
            return page.response(status: .badRequest, redirectOrigin: nil)
        }
    }

    /// The client a request names, known and allowing its redirect, with its title and the
    /// sealing key; `Invalid client_id` or `Invalid redirect_uri` otherwise.
    func checked(_ asked: AuthorizationRequest, portal: ServerAddress?) throws -> (OAuthClient, String, [UInt8]) {
        guard let client = try client(asked.clientId) else { throw OAuthRefusal.invalidClient() }
        guard client.allowsRedirect(to: asked.redirectURI, portal: portal) else { throw OAuthRefusal.invalidRedirectURI }
        return (client, try title(of: client), try store.oauth.sealingKey())
    }

    /// A built-in client, or a registered app; nil for an unknown id.
    func client(_ id: String) throws -> OAuthClient? {
        if OAuthClient.builtInIds.contains(id) { return .builtIn(id) }
        return try store.oauth.app(clientId: id).map(OAuthClient.registered)
    }

    func title(of client: OAuthClient) throws -> String {
        switch client {
        case .builtIn(let id): return OAuthEndpoints.builtInTitles[id] ?? id
        case .registered(let app): return try store.portal.item(id: app.itemId)?.title ?? app.clientId
        }
    }

    /// The browser's nonce cookie, only for the sign-in's paths (`…/sharing`).
    func cookie(_ nonce: String, base: String) -> String {
        let secure = origin.scheme == "https" ? "; Secure" : ""
        let seconds = SealedState.lifetime / 1000
        return "\(OAuthEndpoints.cookie)=\(nonce); Path=\(base)/sharing; Max-Age=\(seconds); HttpOnly; SameSite=Lax\(secure)"
    }

    // MARK: - The sign-in

    /// `oauth2/signin`: the sealed state opened and its nonce matched with the browser's
    /// cookie, then the password checked as `generateToken` checks it; on success a 302 to
    /// the client's redirect with the code or token. A failure is the page again (400, or 429
    /// while throttled) with `OAUTH_0015`, nothing issued.
    func signIn(_ request: Request, _ c: OutpostRequestContext) async throws -> Response {
        let p = c.form.parameters
        let base = OAuthEndpoints.base(of: request.uri.path)
        let portal = origin.address(of: request)
        let now = store.clock.milliseconds()
        var page = SignInPage(
            appTitle: "Outpost", locale: OAuthEndpoints.locale(p), messages: [], code: SignInPage.failedSignIn,
            action: base + "/sharing/oauth2/signin")
        let opened: (state: SealedState, client: OAuthClient, title: String, key: [UInt8])
        do {
            guard let text = p.string("oauth_state") else {
                throw OAuthRefusal.invalidRequest("oauth_state is required: open the sign-in page again")
            }
            opened = try await StoreCall.run {
                let state = try SealedState.open(text, key: try store.oauth.sealingKey(), now: now)
                let (client, title, key) = try checked(state.request, portal: portal)
                return (state, client, title, key)
            }
        } catch {
            let refusal = ArcGISError(answering: error)
            (page.messages, page.error) = ([refusal.message], refusal.oauthError ?? "invalid_request")
            return page.response(status: .badRequest, redirectOrigin: nil)
        }
        (page.clientId, page.appTitle) = (opened.client.id, opened.title)
        guard let nonce = OAuthEndpoints.browserNonce(of: request), Credentials.sameBytes(Array(nonce.utf8), Array(opened.state.browserNonce.utf8))
        else {
            // Another site's page posting its own state: a login CSRF. Not signed in, no form.
            page.messages = ["This sign-in did not come from the sign-in page this browser was shown: open the sign-in page again."]
            page.error = "invalid_request"
            return page.response(status: .badRequest, redirectOrigin: nil)
        }
        let redirectOrigin = OAuthEndpoints.redirectOrigin(opened.state.request.redirectURI)
        // Another attempt gets a fresh state for the same browser.
        page.oauthState = try SealedState(request: opened.state.request, issued: now, browserNonce: nonce).sealed(key: opened.key)
        page.username = p.string("username")
        page.singleSignOn = singleSignOn(base: base, state: page.oauthState)
        guard let name = p.string("username"), let password = p.string("password") else {
            page.messages = ["Enter your username and password."]
            return page.response(status: .badRequest, redirectOrigin: redirectOrigin)
        }
        let user: ServerUser
        do {
            user = try await authenticator.signIn(name: name, password: password, address: c.remoteAddress)
        } catch {
            let refusal = ArcGISError(answering: error)
            if refusal.kind == .tooManyRequests {
                page.messages = ["Too many invalid attempts. Please try again later.", refusal.message]
                var response = page.response(status: .tooManyRequests, redirectOrigin: redirectOrigin)
                if let seconds = refusal.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
                return response
            }
            guard refusal == Authenticator.wrongPassword else { throw error }
            page.messages = ["Invalid username or password."]
            return page.response(status: .badRequest, redirectOrigin: redirectOrigin)
        }
        let minutes = OAuthEndpoints.minutes(p.string("expiration")) ?? opened.state.request.minutes
        let approval = origin.of(request) + base + "/sharing/oauth2/approval"
        let location = try await StoreCall.run { try grant(opened.state.request, to: user, minutes: minutes, approvalURL: approval) }
        return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// What a signed-in user's browser is sent back with: a code (kept hashed for 5 minutes)
    /// or an access token in the fragment.
    func grant(_ asked: AuthorizationRequest, to user: ServerUser, minutes wanted: Int?, approvalURL: String) throws -> String {
        let minutes = capped(wanted)
        switch asked.responseType {
        case .token:
            let issued = try store.oauth.issueAccessToken(for: user, clientId: asked.clientId, minutes: minutes, refreshToken: nil)
            return OAuthRedirect.token(
                issued.token, expiresInSeconds: Int64(minutes) * 60, user: user.name, ssl: origin.scheme == "https", for: asked,
                approvalURL: approvalURL)
        case .code:
            let code = Credentials.newToken()
            let grant = AuthorizationGrant(
                clientId: asked.clientId, redirectURI: asked.redirectURI, user: user.name, codeChallenge: asked.codeChallenge, minutes: minutes)
            try store.oauth.saveCode(code, grant: grant, expires: store.clock.milliseconds() + OAuthEndpoints.codeLifetime)
            return OAuthRedirect.code(code, for: asked, approvalURL: approvalURL)
        }
    }

    /// Minutes as asked (`Int.max`: the most), within the server's bounds.
    func capped(_ minutes: Int?) -> Int {
        max(1, min(minutes ?? defaultMinutes, maximumMinutes))
    }
}
