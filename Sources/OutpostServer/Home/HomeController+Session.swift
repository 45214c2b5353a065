import Foundation
import HTTPTypes
import Hummingbird
import OutpostHomeInputs
import OutpostIdentity
import OutpostWire

/// Signing in to the home is the portal's OAuth 2.0 sign-in, as ArcGIS's own home does it:
/// the built-in client `arcgisonline`, an authorization code with PKCE sent back to
/// `postsignin.html`, exchanged at `oauth2/token` (docs/home.md, "Signing in"). The sign-in
/// page, single sign-on and the sign-in throttle are the portal's.
extension HomeController {
    static let signInCookie = "outpost_home_signin"
    static let clientId = "arcgisonline"

    /// Who asks, as the portal answers: the user of the browser's token, renewed with the
    /// refresh token once it ends; the forms' secret, new if the browser has none; the
    /// message an action left, spent.
    func homeRequest(_ request: Request, _ context: OutpostRequestContext) async throws -> HomeRequest {
        var session = HomeSession(user: nil, token: nil, securityOn: true, csrf: "", secureCookies: origin.of(request).hasPrefix("https:"))
        let secure = session.secureCookies
        if let csrf = HomeSession.cookie(HomeSession.csrfCookie, of: request), csrf.utf8.count == 32 {
            session.csrf = csrf
        } else {
            session.csrf = HomeSession.newSecret()
            session.setCookies.append(HomeSession.setCookie(HomeSession.csrfCookie, session.csrf, secure: secure, sameSite: "Strict"))
        }
        if let flash = HomeSession.cookie(HomeSession.flashCookie, of: request) {
            session.flash = HomeFlash(cookieValue: flash)
            session.setCookies.append(HomeSession.setCookie(HomeSession.flashCookie, nil, secure: secure))
        }
        var home = HomeRequest(request: request, context: context, session: session, gateway: gateway)
        home.session.token = HomeSession.cookie(HomeSession.tokenCookie, of: request)
        let hadToken = home.session.token != nil
        var portal = try? await home.get(HomeRequest.portal + "/portals/self")
        if portal == nil, hadToken {
            home.session.token = nil
            if let renewed = await renewedToken(home) {
                home.session.token = renewed.token
                home.session.setCookies.append(renewed.cookie)
                portal = try? await home.get(HomeRequest.portal + "/portals/self")
            } else {
                home.session.setCookies += [
                    HomeSession.setCookie(HomeSession.tokenCookie, nil, secure: secure),
                    HomeSession.setCookie(HomeSession.refreshCookie, nil, secure: secure),
                ]
                portal = try? await home.get(HomeRequest.portal + "/portals/self")
            }
        }
        home.session.user = portal.flatMap(HomeSession.user(fromPortalSelf:))
        home.session.securityOn = portal?["access"]?.stringValue != "public"
        return home
    }

    /// A new access token from the sign-in's refresh token (its cookie updated), if it lives.
    private func renewedToken(_ home: HomeRequest) async -> (token: String, cookie: String)? {
        guard let refresh = HomeSession.cookie(HomeSession.refreshCookie, of: home.request),
            let answer = try? await home.post(
                HomeRequest.portal + "/oauth2/token",
                [("client_id", Self.clientId), ("grant_type", "refresh_token"), ("refresh_token", refresh)]),
            let token = answer["access_token"]?.stringValue
        else { return nil }
        return (token, tokenCookie(token, answer: answer, secure: home.secure))
    }

    private func tokenCookie(_ token: String, answer: JSONValue, secure: Bool) -> String {
        HomeSession.setCookie(HomeSession.tokenCookie, token, secure: secure, maxAge: answer["expires_in"]?.int64Value.map { Int($0) })
    }

    /// `signin.html`: to the portal's sign-in page, with a state and a PKCE verifier kept in a
    /// cookie for `postsignin.html`.
    func startSignIn(_ request: Request, _ context: OutpostRequestContext) async throws -> Response {
        let state = HomeSession.newSecret()
        let verifier = HomeSession.newSecret() + HomeSession.newSecret()
        let returnTo = HomeInputs.returnPage(context.form.parameters.string("returnTo")) ?? "index.html"
        let query = HomeGateway.formEncoded([
            ("client_id", Self.clientId), ("response_type", "code"), ("redirect_uri", redirectURI(request)), ("state", state),
            ("code_challenge", PKCE.challenge(of: verifier)), ("code_challenge_method", "S256"),
        ])
        let kept = [state, verifier, Data(returnTo.utf8).base64EncodedString()].joined(separator: ".")
        var headers: HTTPFields = [.location: "/arcgis/sharing/rest/oauth2/authorize?" + query, .cacheControl: "no-store"]
        let secure = origin.of(request).hasPrefix("https:")
        headers.append(HTTPField(name: .setCookie, value: HomeSession.setCookie(Self.signInCookie, kept, secure: secure, maxAge: 900)))
        return Response(status: .found, headers: headers)
    }

    private func redirectURI(_ request: Request) -> String { origin.of(request) + "/\(Self.root)/postsignin.html" }

    /// `postsignin.html?code=…&state=…`: the code exchanged for the user's tokens, kept in the
    /// home's cookies; then the page the sign-in started from.
    func finishSignIn(_ request: Request, _ context: OutpostRequestContext) async throws -> Response {
        var home = try await homeRequest(request, context)
        let secure = home.secure
        home.session.setCookies.append(HomeSession.setCookie(Self.signInCookie, nil, secure: secure))
        let kept = HomeSession.cookie(Self.signInCookie, of: request)?.split(separator: ".").map(String.init) ?? []
        guard kept.count == 3, let state = home.form.string("state"), state == kept[0], let code = home.form.string("code") else {
            return home.redirect(to: "index.html", failed: "The sign-in did not finish here. Sign in again.")
        }
        let returnTo = Data(base64Encoded: kept[2]).flatMap { String(data: $0, encoding: .utf8) }.flatMap(HomeInputs.returnPage) ?? "index.html"
        home.session.token = nil
        do {
            let answer = try await home.post(
                HomeRequest.portal + "/oauth2/token",
                [
                    ("client_id", Self.clientId), ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI(request)),
                    ("code_verifier", kept[1]),
                ])
            guard let token = answer["access_token"]?.stringValue else { throw HomeFailure(message: "The portal gave no token.", code: 500) }
            home.session.setCookies.append(tokenCookie(token, answer: answer, secure: secure))
            if let refresh = answer["refresh_token"]?.stringValue {
                home.session.setCookies.append(
                    HomeSession.setCookie(
                        HomeSession.refreshCookie, refresh, secure: secure, maxAge: answer["refresh_token_expires_in"]?.int64Value.map { Int($0) }))
            }
            return home.redirect(to: returnTo, flash: nil)
        } catch let failure as HomeFailure {
            return home.redirect(to: "index.html", failed: "The sign-in failed: \(failure.text)")
        }
    }

    /// `actions/signout`: the sign-in's tokens revoked at the portal and its cookies cleared.
    func signOut(_ home: HomeRequest) async throws -> Response {
        var home = home
        for token in [HomeSession.cookie(HomeSession.refreshCookie, of: home.request), home.session.token].compactMap({ $0 }) {
            _ = try? await home.post(HomeRequest.portal + "/oauth2/revokeToken", [("client_id", Self.clientId), ("token", token)])
        }
        home.session.setCookies += [
            HomeSession.setCookie(HomeSession.tokenCookie, nil, secure: home.secure),
            HomeSession.setCookie(HomeSession.refreshCookie, nil, secure: home.secure),
        ]
        home.session.token = nil
        return home.redirect(to: "index.html", done: "You are signed out.")
    }
}
