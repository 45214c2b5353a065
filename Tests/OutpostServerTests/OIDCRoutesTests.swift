import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostIdentity
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Single sign-on's routes (docs/identity.md, "Single sign-on"): the sign-in page's button,
/// `oauth2/oidc/start`'s redirect to the provider (a live discovery document served here),
/// and what `oauth2/oidc/callback` refuses, creating nothing. The whole flow, with a real
/// provider and browser: interop `test_oidc.py`.
@Suite struct OIDCRoutesTests {
    static let query = [
        ("response_type", "code"), ("client_id", "pythonapi"), ("redirect_uri", OAuthFlows.outOfBand), ("state", "client-state"),
    ]

    /// A provider that answers only its discovery document, on a loopback port.
    static func withProvider(_ body: @Sendable (String) async throws -> Void) async throws {
        let router = Router()
        // Elsewhere: a redirect, which is not followed.
        router.get("moved/.well-known/openid-configuration") { request, _ -> Response in
            Response(status: .found, headers: [.location: "http://\(request.head.authority ?? "")/.well-known/openid-configuration"])
        }
        router.get(".well-known/openid-configuration") { request, _ -> Response in
            let issuer = "http://\(request.head.authority ?? "")"
            let document: JSONValue = [
                "issuer": .string(issuer), "authorization_endpoint": .string(issuer + "/oauth2/authorize"),
                "token_endpoint": .string(issuer + "/oauth2/token"), "jwks_uri": .string(issuer + "/jwks"),
                "response_types_supported": ["code"], "id_token_signing_alg_values_supported": ["RS256"],
            ]
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: document.jsonText)))
        }
        let provider = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await provider.test(.live) { client in
            try await body("http://127.0.0.1:\(try #require(client.port))")
        }
    }

    static func options(issuer: String) -> ServerOptions {
        var options = OAuthFlows.options
        options.oidc = OIDCSettings(issuer: issuer, clientId: "outpost-portal", clientSecret: "s3cret", name: "Example ID")
        return options
    }

    /// The start link of a sign-in page, as its `href` writes it.
    static func startLink(_ page: OAuthAnswer) -> String? {
        guard let range = page.text.range(of: #"href="[^"]*/oidc/start\?oauth_state=[^"]*""#, options: .regularExpression) else { return nil }
        return String(page.text[range].dropFirst(6).dropLast()).replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func theSignInPageOffersTheProviderAndStartSendsTheBrowserThere() async throws {
        try await Self.withProvider { issuer in
            try await OAuthFlows.with(options: Self.options(issuer: issuer)) { client, store, _ in
                var browser = OAuthBrowser(client)
                let page = try await browser.open(Self.query)
                #expect(page.status == 200 && page.text.contains(">Sign in with Example ID</a>"), "\(page)")
                let link = try #require(Self.startLink(page), "\(page)")
                let state = try #require(page.oAuthInfo?["oauth_state"]?.stringValue)
                #expect(link == "/arcgis/sharing/oauth2/oidc/start?oauth_state=" + FormURLEncoding.percentEncode(state))

                let started = try await browser.send(.get, link)
                #expect(started.status == 302, "\(started)")
                let location = try #require(started.location)
                #expect(location.hasPrefix(issuer + "/oauth2/authorize?"), "\(location)")
                let asked = started.redirected("?")
                #expect(asked["response_type"] == "code" && asked["client_id"] == "outpost-portal")
                let callback = try #require(asked["redirect_uri"])
                #expect(callback.hasPrefix("https://") && callback.hasSuffix("/arcgis/sharing/oauth2/oidc/callback"), "\(callback)")
                #expect(asked["code_challenge_method"] == "S256" && asked["code_challenge"]?.utf8.count == 43)
                #expect((asked["nonce"]?.utf8.count ?? 0) >= 43 && asked["scope"]?.contains("openid") == true)
                // The provider's state is sealed: it names neither the portal's state nor the verifier.
                let sealed = try #require(asked["state"])
                #expect(!sealed.contains(state) && sealed != state)
                let key = try store.oauth.sealingKey()
                let opened = try OIDCSignInState.open(sealed, key: key, now: store.clock.milliseconds())
                #expect(
                    opened.portalState == state && PKCE.challenge(of: opened.verifier) == asked["code_challenge"] && opened.nonce == asked["nonce"])

                // Without the page's cookie (another site's link): the page says so, no redirect.
                let foreign = try await OAuthBrowser(client).send(.get, link)
                #expect(foreign.status == 400 && foreign.location == nil && foreign.text.contains("did not come from the sign-in page"), "\(foreign)")
                let forged = try await browser.send(.get, "/arcgis/sharing/oauth2/oidc/start?oauth_state=" + String(state.dropLast(4)) + "AAAA")
                #expect(forged.status == 400 && forged.location == nil && forged.oAuthInfo?["oauth_state"] == nil, "\(forged)")
            }
        }
    }

    @Test func aProviderOutOfReachIsSaidOnThePageWithTheFormAgain() async throws {
        // Port 9 (discard) on loopback: nothing listens in the test environment.
        try await OAuthFlows.with(options: Self.options(issuer: "http://127.0.0.1:9")) { client, _, _ in
            var browser = OAuthBrowser(client)
            let page = try await browser.open(Self.query)
            let started = try await browser.send(.get, try #require(Self.startLink(page)))
            #expect(started.status == 400 && started.location == nil, "\(started)")
            #expect(started.text.contains("Single sign-on failed") && started.oAuthInfo?["oauth_state"]?.stringValue != nil, "\(started)")
        }
    }

    @Test func aRedirectingProviderIsNotFollowed() async throws {
        try await Self.withProvider { issuer in
            try await OAuthFlows.with(options: Self.options(issuer: issuer + "/moved")) { client, _, _ in
                var browser = OAuthBrowser(client)
                let page = try await browser.open(Self.query)
                let started = try await browser.send(.get, try #require(Self.startLink(page)))
                #expect(started.status == 400 && started.location == nil && started.text.contains("answered HTTP 302"), "\(started)")
            }
        }
    }

    @Test func withoutAProviderThereIsNoButtonAndNoRoute() async throws {
        try await OAuthFlows.with { client, _, _ in
            var browser = OAuthBrowser(client)
            let page = try await browser.open(Self.query)
            #expect(page.status == 200 && !page.text.contains("Sign in with") && Self.startLink(page) == nil)
            let state = try #require(page.oAuthInfo?["oauth_state"]?.stringValue)
            let started = try await browser.send(.get, "/arcgis/sharing/oauth2/oidc/start?oauth_state=\(state)")
            #expect(started.status == 404 || started.json["error"]?["code"] == 404, "\(started)")
        }
    }

    @Test func theCallbackRefusesWhatItCannotTrustAndCreatesNothing() async throws {
        try await Self.withProvider { issuer in
            try await OAuthFlows.with(options: Self.options(issuer: issuer)) { client, store, _ in
                let usersBefore = try store.users.users().count
                var browser = OAuthBrowser(client)
                let page = try await browser.open(Self.query)
                let started = try await browser.send(.get, try #require(Self.startLink(page)))
                let sealed = try #require(started.redirected("?")["state"], "\(started)")
                let callback = "/arcgis/sharing/oauth2/oidc/callback"

                // The provider's refusal: said on the page, with the form and the button again.
                let denied = try await browser.send(.get, "\(callback)?error=access_denied&state=\(sealed)")
                #expect(denied.status == 400 && denied.location == nil, "\(denied)")
                #expect(denied.text.contains("Example ID did not sign you in (access_denied)"), "\(denied)")
                #expect(denied.oAuthInfo?["oauth_state"]?.stringValue != nil && Self.startLink(denied) != nil)
                // A refusal without its state is still said, with no form.
                let bare = try await browser.send(.get, "\(callback)?error=access_denied")
                #expect(bare.status == 400 && bare.text.contains("did not sign you in") && bare.oAuthInfo?["oauth_state"] == nil, "\(bare)")

                for (label, query) in [
                    ("no state", "code=abc"),
                    ("altered state", "code=abc&state=" + String(sealed.dropLast(4)) + (sealed.hasSuffix("AAAA") ? "BBBB" : "AAAA")),
                    ("the portal's own state as the provider's", "code=abc&state=" + (page.oAuthInfo?["oauth_state"]?.stringValue ?? "")),
                ] {
                    let answer = try await browser.send(.get, "\(callback)?\(query)")
                    #expect(answer.status == 400 && answer.location == nil && answer.oAuthInfo?["oauth_state"] == nil, "\(label): \(answer)")
                }
                // The right state from another browser (no cookie): refused before the code is used.
                let foreign = try await OAuthBrowser(client).send(.get, "\(callback)?code=abc&state=\(sealed)")
                #expect(foreign.status == 400 && foreign.text.contains("did not come from the sign-in page"), "\(foreign)")
                // A code the provider never issued: its token endpoint (missing here) refuses it.
                let unknown = try await browser.send(.get, "\(callback)?code=abc&state=\(sealed)")
                #expect(unknown.status == 400 && unknown.text.contains("Single sign-on failed"), "\(unknown)")
                #expect(try store.users.users().count == usersBefore)
            }
        }
    }
}
