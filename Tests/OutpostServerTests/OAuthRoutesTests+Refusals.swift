import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostIdentity
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// What the sign-in refuses: clients and redirects it does not know, states it did not seal
/// or that lapsed, posts without the page's cookie, and guessing (the shared throttle).
extension OAuthRoutesTests {
    /// A bad `client_id` or `redirect_uri` is said on the page (ArcGIS's words, which the
    /// ArcGIS API for Python looks for) and never redirected; neither page can be signed in from.
    @Test func aBadClientOrRedirectIsSaidOnThePageAndNeverRedirected() async throws {
        try await OAuthFlows.with { client, _, _ in
            var browser = OAuthBrowser(client)
            func page(_ clientId: String, _ redirect: String) async throws -> OAuthAnswer {
                try await browser.open([("response_type", "token"), ("client_id", clientId), ("redirect_uri", redirect), ("state", "x")])
            }
            let unknown = try await page("nobody", "https://localhost")
            #expect(unknown.status == 400 && unknown.location == nil && unknown.text.contains("Error: Invalid client_id"), "\(unknown)")
            for redirect in [
                "https://evil.example", "https://localhost:8443", "http://localhost:443", "https://localhost@evil.example", "https://localhost#x",
                "javascript:alert(1)", "",
            ] {
                let answer = try await page("pythonapi", redirect)
                #expect(answer.status == 400 && answer.location == nil && answer.text.contains("Invalid redirect_uri"), "\(redirect): \(answer)")
                #expect(answer.oAuthInfo?["oauth_state"] == nil && !answer.text.contains("<form"), "\(redirect)")
            }
            // The portal itself, and the out-of-band page, are the built-in client's.
            for redirect in ["https://localhost", "https://localhost/arcgis/home", OAuthFlows.outOfBand] {
                #expect(try await page("pythonapi", redirect).status == 200, "\(redirect)")
            }
            // What the page repeats is escaped, in the page and in its script line alike.
            let hostileValue = "<b>x</b>'\u{2028}};{"
            let hostile = try await browser.open([
                ("response_type", hostileValue), ("client_id", "pythonapi"), ("redirect_uri", "https://localhost"), ("locale", "\"><script>"),
            ])
            #expect(hostile.status == 400 && !hostile.text.contains("<b>") && !hostile.text.contains("\"><script>"), "\(hostile)")
            let message = hostile.oAuthInfo?["messages"]?[0]?.stringValue ?? ""
            #expect(message.contains(hostileValue) && hostile.text.contains("<html lang=\"en\">"), "\(hostile)")
        }
    }

    /// An altered state, one sealed under another key, one of another portal's, and one
    /// older than 15 minutes are refused on the page (`OAUTH_0015`), with nothing issued.
    @Test func aForgedAlteredOrLapsedStateIsRefused() async throws {
        let clock = ManualClock(milliseconds: 1_767_225_600_000)
        try await OAuthFlows.with(clock: clock) { client, store, _ in
            var browser = OAuthBrowser(client)
            let page = try await browser.open([("response_type", "token"), ("client_id", "pythonapi"), ("redirect_uri", "https://localhost")])
            let state = try #require(page.oAuthInfo?["oauth_state"]?.stringValue)
            let nonce = try #require(browser.cookie?.split(separator: "=").last.map(String.init))
            let asked = AuthorizationRequest(clientId: "pythonapi", responseType: .token, redirectURI: "https://evil.example")
            let foreign = try SealedState(request: asked, issued: clock.milliseconds(), browserNonce: nonce).sealed(key: Credentials.randomBytes(32))
            var altered = Array(state)
            altered[altered.count / 2] = altered[altered.count / 2] == "A" ? "B" : "A"
            for bad in [String(altered), foreign, String(state.dropLast(4)), "", String(repeating: "A", count: 9000)] {
                let answer = try await browser.signIn(state: bad, user: "eve", password: "eve-password")
                #expect(answer.status == 400 && answer.location == nil && answer.text.contains("OAUTH_0015"), "\(answer)")
                #expect(answer.oAuthInfo?["messages"]?.arrayValue?.isEmpty == false && answer.oAuthInfo?["error"] == "invalid_request", "\(answer)")
            }
            // A state sealed with the portal's own key, but for an address the client may not
            // be sent to, is refused all the same.
            let sealedBadly = try SealedState(request: asked, issued: clock.milliseconds(), browserNonce: nonce).sealed(
                key: try store.oauth.sealingKey())
            #expect(try await browser.signIn(state: sealedBadly, user: "eve", password: "eve-password").location == nil)
            clock.advance(milliseconds: SealedState.lifetime + 1000)
            let lapsed = try await browser.signIn(state: state, user: "eve", password: "eve-password")
            #expect(lapsed.status == 400 && lapsed.location == nil && lapsed.text.contains("OAUTH_0015"), "\(lapsed)")
            // A fresh page signs in.
            let fresh = try await browser.signedIn(
                [("response_type", "token"), ("client_id", "pythonapi"), ("redirect_uri", "https://localhost")], user: "eve")
            #expect(fresh.redirected("#")["access_token"] != nil, "\(fresh)")
        }
    }

    /// A sign-in posted without the page's cookie (another site's page posting its own
    /// state: login CSRF), or with another browser's, signs nobody in.
    @Test func aSignInWithoutThePagesCookieIsRefused() async throws {
        try await OAuthFlows.with { client, _, _ in
            var victim = OAuthBrowser(client)
            var attacker = OAuthBrowser(client)
            let query = [("response_type", "token"), ("client_id", "pythonapi"), ("redirect_uri", "https://localhost")]
            let attackersPage = try await attacker.open(query)
            _ = try await victim.open(query)
            #expect(victim.cookie != nil && victim.cookie != attacker.cookie)
            let state = try #require(attackersPage.oAuthInfo?["oauth_state"]?.stringValue)
            let anonymous = OAuthBrowser(client)
            for browser in [victim, anonymous] {
                let answer = try await browser.signIn(state: state, user: "ed", password: "ed-password")
                #expect(answer.status == 400 && answer.location == nil && answer.text.contains("OAUTH_0015"), "\(answer)")
                #expect(!answer.text.contains("<form") && answer.oAuthInfo?["error"] == "invalid_request", "no form to go on with")
            }
            #expect(try await attacker.signIn(state: state, user: "ed", password: "ed-password").location != nil, "its own browser signs in")
        }
    }

    /// The sign-in shares `generateToken`'s throttle: after the free failures it answers 429
    /// with `Retry-After` even for the right password, and so does `generateToken`.
    @Test func theSignInIsThrottledAsGenerateToken() async throws {
        try await OAuthFlows.with(clock: ManualClock()) { client, _, _ in
            var browser = OAuthBrowser(client)
            let query = [("response_type", "token"), ("client_id", "pythonapi"), ("redirect_uri", "https://localhost")]
            let page = try await browser.open(query)
            let state = try #require(page.oAuthInfo?["oauth_state"]?.stringValue)
            for _ in 0..<LoginThrottle.freeFailures {
                let wrong = try await browser.signIn(state: state, user: "eve", password: "wrong")
                #expect(wrong.status == 400 && wrong.location == nil, "\(wrong)")
                #expect(wrong.oAuthInfo?["messages"]?[0] == "Invalid username or password." && wrong.text.contains("OAUTH_0015"), "\(wrong)")
                #expect(wrong.oAuthInfo?["oauth_state"] != nil && wrong.text.contains("value=\"eve\""), "the form again")
            }
            _ = try await browser.signIn(state: state, user: "eve", password: "wrong")
            let throttled = try await browser.signIn(state: state, user: "eve", password: "eve-password")
            #expect(throttled.status == 429 && throttled.headers[.retryAfter] != nil && throttled.location == nil, "\(throttled)")
            #expect(throttled.text.contains("OAUTH_0015") && throttled.text.contains("Too many invalid attempts"))
            let token = try await post(client, "\(portalURL)/generateToken", [("f", "json"), ("username", "eve"), ("password", "eve-password")])
            #expect(token["error"]?["code"] == 429, "\(token)")
        }
    }

    /// The token endpoints answer every origin, as the token service does, even with an
    /// allowed list; the sign-in page does not.
    @Test func theTokenEndpointsAreOpenToEveryOrigin() throws {
        let policy = try #require(CrossOriginPolicy(allowedOrigins: "https://app.example"))
        for path in ["/sharing/rest/oauth2/token", "/arcgis/sharing/oauth2/token", "/arcgis/sharing/rest/oauth2/revokeToken"] {
            let decision = policy.decide(.init(method: .post, path: path, origin: "https://other.example"))
            #expect(decision != .refuse(origin: "https://other.example"), "\(path)")
        }
        let page = policy.decide(.init(method: .post, path: "/arcgis/sharing/oauth2/signin", origin: "https://other.example"))
        #expect(page == .refuse(origin: "https://other.example"))
    }
}
