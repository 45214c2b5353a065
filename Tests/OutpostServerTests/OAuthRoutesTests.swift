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

/// The portal's OAuth 2.0 routes (docs/identity.md, issue 46): the sign-in as the ArcGIS API for
/// Python makes it, the code flow with PKCE, refresh, revocation and sign-out, and what a
/// sign-in refuses. Registered apps and their tokens: `OAuthRoutesTests+Apps.swift`.
@Suite struct OAuthRoutesTests {
    /// The ArcGIS API for Python 2.4.4's `GIS(url, user, password)` (`_init_response_type_token`):
    /// the page for `pythonapi` with the portal's own address as redirect, `oauth_state` from
    /// the page's first `{…}`, the sign-in posted to `…/sharing/oauth2/signin` (no `/rest`)
    /// with the page's cookie, and the token from the Location's fragment, with its state.
    @Test(arguments: DemoBackend.all)
    func thePythonAPIsSignInEndsInATokenThatReadsAndEdits(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, _ in
            var browser = OAuthBrowser(client)
            let page = try await browser.open([
                ("response_type", "token"), ("client_id", "pythonapi"), ("redirect_uri", "https://localhost"), ("expiration", "20160"),
                ("state", "py-state-1"), ("allow_verification", "false"), ("style", "dark"), ("locale", "en-US"),
            ])
            #expect(page.status == 200 && !page.text.contains("Invalid redirect_uri"), "\(page)")
            let info = try #require(page.oAuthInfo, "no {…} line: \(page)")
            let state = try #require(info["oauth_state"]?.stringValue)
            #expect(info["client_id"] == "pythonapi" && info["appTitle"] == "ArcGIS API for Python", "\(info)")
            // The first line with a brace is the script's; the page is a form that needs no script.
            let firstBraces = page.text.split(separator: "\n").first { $0.contains("{") } ?? ""
            #expect(firstBraces.hasPrefix("<script") && firstBraces.contains("var oAuthInfo = {") && firstBraces.hasSuffix("};</script>"))
            for piece in [
                "<html lang=\"en-US\">", "name=\"viewport\"", "action=\"/arcgis/sharing/oauth2/signin\"", "<label for=\"username\">",
                "autocomplete=\"username\"", "autocomplete=\"current-password\"", "type=\"hidden\" name=\"oauth_state\"", "required",
                "<button type=\"submit\">",
            ] {
                #expect(page.text.contains(piece), "\(piece)")
            }
            #expect(!page.text.contains("src=") && !page.text.contains("@import"), "nothing from elsewhere")
            #expect(page.headers[.cacheControl] == "no-store" && page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            let policy = page.headers[.contentSecurityPolicy] ?? ""
            #expect(
                policy.hasPrefix("default-src 'none'; style-src 'unsafe-inline'; form-action 'self'") && policy.contains("frame-ancestors 'none'"))
            let cookie = page.headers[.setCookie] ?? ""
            #expect(
                cookie.hasPrefix("outpost_signin=") && cookie.contains("Path=/arcgis/sharing;") && cookie.contains("HttpOnly")
                    && cookie.contains("SameSite=Lax") && cookie.contains("Secure"), "\(cookie)")

            let signedIn = try await browser.signIn(state: state, user: "eve", password: "eve-password")
            #expect(signedIn.status == 302, "\(signedIn)")
            #expect(signedIn.location?.hasPrefix("https://localhost#") == true, "\(signedIn)")
            let fragment = signedIn.redirected("#")
            let token = try #require(fragment["access_token"], "\(signedIn)")
            #expect(fragment["state"] == "py-state-1" && fragment["token_type"] == "Bearer" && fragment["username"] == "eve")
            // 20160 minutes asked, the server's most (1440) given.
            #expect(fragment["expires_in"] == String(1440 * 60) && fragment["ssl"] == "true", "\(fragment)")

            let portal = try await OAuthFlows.portalUser(client, bearer: token)
            #expect(portal["user"]?["username"] == "eve", "\(portal)")
            #expect(portal["supportsOAuth"] == true, "portals/self says the portal signs in with OAuth 2.0")
            let edits = try await OAuthFlows.addsAFeature(client, bearer: token)
            #expect(edits["addResults"]?[0]?["success"] == true, "\(edits)")
        }
    }

    /// The code flow with PKCE, each wrong exchange refused with nothing issued: a wrong
    /// verifier, another `redirect_uri`, another client (`invalid_grant`), an unknown client
    /// (`invalid_client`), a code exchanged twice; the right exchange answers both tokens.
    @Test(arguments: DemoBackend.all)
    func theCodeFlowWithPKCEExchangesACodeOnceForItsClientOnly(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, _ in
            var browser = OAuthBrowser(client)
            let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
            let challenge = PKCE.challenge(of: verifier)
            func exchange(
                _ code: String, client id: String = "pythonapi", redirect: String = OAuthFlows.outOfBand, verifier: String? = verifier
            )
                async throws -> JSONValue
            {
                var fields = [("grant_type", "authorization_code"), ("client_id", id), ("code", code), ("redirect_uri", redirect)]
                if let verifier { fields.append(("code_verifier", verifier)) }
                return try await browser.exchange(fields)
            }
            func refused(_ answer: JSONValue, _ error: String) -> Bool {
                answer["access_token"] == nil && answer["refresh_token"] == nil && answer["error"]?["code"] == 400
                    && answer["error"]?["error"]?.stringValue == error && answer["error"]?["error_description"] != nil
            }

            // The out-of-band redirect is the approval page, its title the code.
            let page = try await browser.open([
                ("response_type", "code"), ("client_id", "pythonapi"), ("redirect_uri", OAuthFlows.outOfBand), ("state", "s1"),
                ("code_challenge", challenge), ("code_challenge_method", "S256"),
            ])
            let signedIn = try await browser.signIn(
                state: try #require(page.oAuthInfo?["oauth_state"]?.stringValue), user: "eve", password: "eve-password")
            let location = try #require(signedIn.location, "\(signedIn)")
            #expect(location.hasPrefix("https://localhost/arcgis/sharing/oauth2/approval?code="), "\(location)")
            let code = try #require(signedIn.redirected("?")["code"])
            #expect(signedIn.redirected("?")["state"] == "s1")
            let approval = try await browser.send(.get, String(location.dropFirst("https://localhost".count)))
            #expect(approval.text.contains("<title>SUCCESS code=\(code)</title>"), "\(approval)")

            #expect(refused(try await exchange(code, verifier: String(repeating: "x", count: 43)), "invalid_grant"))
            // The code was spent by the wrong verifier: the right one comes too late.
            #expect(refused(try await exchange(code), "invalid_grant"))
            #expect(refused(try await exchange(try await browser.code(challenge: challenge), verifier: nil), "invalid_grant"))
            #expect(
                refused(try await exchange(try await browser.code(challenge: challenge), redirect: "https://localhost/arcgis"), "invalid_grant"))
            #expect(refused(try await exchange(try await browser.code(challenge: challenge), client: "arcgispro"), "invalid_grant"))
            #expect(refused(try await exchange(try await browser.code(challenge: challenge), client: "nobody"), "invalid_client"))
            // Without a challenge, a verifier is refused too (it proves nothing).
            #expect(refused(try await exchange(try await browser.code()), "invalid_grant"))

            let good = try await browser.code(challenge: challenge)
            let tokens = try await exchange(good)
            let access = try #require(tokens["access_token"]?.stringValue, "\(tokens)")
            #expect(tokens["refresh_token"]?.stringValue?.count == 64 && tokens["token_type"] == "Bearer" && tokens["username"] == "eve")
            #expect(tokens["expires_in"] == .int(1440 * 60) && tokens["refresh_token_expires_in"] == .int(14 * 24 * 3600) && tokens["ssl"] == true)
            #expect(try await OAuthFlows.portalUser(client, bearer: access)["user"]?["username"] == "eve")
            #expect(refused(try await exchange(good), "invalid_grant"), "a code is exchanged once")
            // `plain` PKCE is refused on the page.
            let plain = try await browser.open([
                ("response_type", "code"), ("client_id", "pythonapi"), ("redirect_uri", OAuthFlows.outOfBand), ("code_challenge", challenge),
                ("code_challenge_method", "plain"),
            ])
            #expect(plain.status == 400 && plain.oAuthInfo?["oauth_state"] == nil, "\(plain)")
        }
    }

    /// A refresh token buys a new access token as often as asked (`refresh_token`) and a
    /// successor once (`exchange_refresh_token`); an exchanged one presented again revokes its
    /// successor too (the family).
    @Test(arguments: DemoBackend.all)
    func aRefreshTokenServesEveryRefreshAndAnExchangedOneRevokesItsFamily(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, _ in
            var browser = OAuthBrowser(client)
            let code = try await browser.code()
            let first = try await browser.exchange([
                ("grant_type", "authorization_code"), ("client_id", "pythonapi"), ("code", code), ("redirect_uri", OAuthFlows.outOfBand),
            ])
            let refresh = try #require(first["refresh_token"]?.stringValue, "\(first)")
            func refreshed(_ token: String, grant: String = "refresh_token", client id: String = "pythonapi") async throws -> JSONValue {
                try await browser.exchange([("grant_type", grant), ("client_id", id), ("refresh_token", token)])
            }
            #expect(try await refreshed(refresh, client: "arcgispro")["error"]?["error"] == "invalid_grant", "another client's")
            // `refresh_token`, as ArcGIS answers it: a new access token, the same refresh token,
            // which the ArcGIS API for Python presents at every refresh.
            for _ in 0..<2 {
                let again = try await refreshed(refresh)
                let access = try #require(again["access_token"]?.stringValue, "\(again)")
                #expect(again["refresh_token"] == nil && again["username"] == "eve", "\(again)")
                #expect(try await OAuthFlows.portalUser(client, bearer: access)["user"]?["username"] == "eve")
            }
            // `exchange_refresh_token`: a successor, the old one spent.
            let exchanged = try await refreshed(refresh, grant: "exchange_refresh_token")
            let successor = try #require(exchanged["refresh_token"]?.stringValue, "\(exchanged)")
            #expect(successor != refresh && exchanged["access_token"]?.stringValue != nil)
            #expect(try await refreshed(successor)["access_token"]?.stringValue != nil, "the successor refreshes")
            let reused = try await refreshed(refresh)
            #expect(reused["error"]?["error"] == "invalid_grant" && reused["access_token"] == nil, "\(reused)")
            let afterReuse = try await refreshed(successor)
            #expect(afterReuse["error"]?["error"] == "invalid_grant", "the family went with the reuse: \(afterReuse)")
        }
    }

    /// `revokeToken` ends an access token or a refresh token, and answers success for one it
    /// does not know; `signout` ends the caller's tokens of that client only.
    @Test(arguments: DemoBackend.all)
    func revocationAndSignOutEndTokens(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, tokens in
            var browser = OAuthBrowser(client)
            let revoke = "/arcgis/sharing/rest/oauth2/revokeToken"
            let code = try await browser.code()
            let issued = try await browser.exchange([
                ("grant_type", "authorization_code"), ("client_id", "pythonapi"), ("code", code), ("redirect_uri", OAuthFlows.outOfBand),
            ])
            let access = try #require(issued["access_token"]?.stringValue)
            let refresh = try #require(issued["refresh_token"]?.stringValue)
            #expect(try await post(client, revoke, [("f", "json"), ("client_id", "pythonapi"), ("token", access)])["success"] == true)
            #expect(try await OAuthFlows.portalUser(client, bearer: access)["error"]?["code"] == 498)
            #expect(try await post(client, revoke, [("f", "json"), ("client_id", "pythonapi"), ("token", refresh)])["success"] == true)
            let refreshed = try await browser.exchange([("grant_type", "refresh_token"), ("client_id", "pythonapi"), ("refresh_token", refresh)])
            #expect(refreshed["error"]?["error"] == "invalid_grant", "\(refreshed)")
            #expect(try await post(client, revoke, [("f", "json"), ("client_id", "pythonapi"), ("token", "f00")])["success"] == true)
            #expect(
                try await post(client, revoke, [("f", "json"), ("client_id", "nobody"), ("token", "f00")])["error"]?["error"] == "invalid_client")

            // Sign-out: the pythonapi sign-in's token ends, the generateToken one lives on.
            let fragment = try await browser.signedIn(
                [("response_type", "token"), ("client_id", "pythonapi"), ("redirect_uri", OAuthFlows.outOfBand)], user: "eve"
            ).redirected("#")
            let python = try #require(fragment["access_token"])
            let signedOut = try await get(client, "/arcgis/sharing/oauth2/signout?f=json&client_id=pythonapi&token=\(python)")
            #expect(signedOut["success"] == true, "\(signedOut)")
            #expect(try await OAuthFlows.portalUser(client, bearer: python)["error"]?["code"] == 498)
            #expect(try await OAuthFlows.portalUser(client, bearer: tokens["eve"]!)["user"]?["username"] == "eve")
            // Back to an address the client may be sent to, never elsewhere.
            let back = try await browser.send(.get, "/sharing/oauth2/signout?client_id=pythonapi&redirect_uri=https%3A%2F%2Flocalhost%2Fbye")
            #expect(back.status == 302 && back.location == "https://localhost/bye", "\(back)")
            let elsewhere = try await browser.send(.get, "/sharing/oauth2/signout?client_id=pythonapi&redirect_uri=https%3A%2F%2Fevil.example")
            #expect(elsewhere.location == nil && elsewhere.json["success"] == true, "\(elsewhere)")
        }
    }

    /// The out-of-band page shows a code's form only; it repeats nothing else it is given.
    @Test func theApprovalPageShowsACodeAndNothingElse() async throws {
        try await OAuthFlows.with { client, _, _ in
            let browser = OAuthBrowser(client)
            let code = String(repeating: "ab", count: 32)
            let shown = try await browser.send(.get, "/sharing/oauth2/approval?code=\(code)")
            #expect(shown.text.contains("<title>SUCCESS code=\(code)</title>") && shown.headers[.cacheControl] == "no-store", "\(shown)")
            let hostile = try await browser.send(.get, "/arcgis/sharing/oauth2/approval?code=%3Cscript%3Ealert(1)%3C%2Fscript%3E")
            #expect(hostile.status == 200 && !hostile.text.contains("script") && hostile.text.contains("<title>SUCCESS</title>"), "\(hostile)")
        }
    }
}
