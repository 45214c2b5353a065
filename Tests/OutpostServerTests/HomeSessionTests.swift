import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostSync
import OutpostWire
import Testing

@testable import OutpostServer

/// The home's sign-in and forms (docs/home.md, "Signing in" and "Forms"): the portal's own
/// OAuth sign-in, the token kept in the home's cookie and renewed, a forged form refused
/// before it changes anything, no way in through a token in the address.
@Suite struct HomeSessionTests {
    @Test(arguments: DemoBackend.all)
    func signingInThroughThePortalComesBackSignedIn(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, _, _ in
            var browser = HomeBrowser(client)
            let visitor = try await browser.open("index.html")
            #expect(visitor.visibleText.contains("Sign in to see your organization"), "\(visitor)")
            let page = try await browser.signIn("eve", returnTo: "user.html")
            #expect(page.status == 200 && page.visibleText.contains("User name eve"), "\(page)")
            #expect(page.visibleText.contains("Publisher (editor)"))
            #expect(browser.cookies[HomeSession.tokenCookie] != nil && browser.cookies[HomeSession.refreshCookie] != nil)
            // The cookie's token is the portal's: the REST API answers it as eve.
            let me = try await OAuthFlows.portalUser(client, bearer: try #require(browser.cookies[HomeSession.tokenCookie]))
            #expect(me["user"]?["username"]?.stringValue == "eve")
        }
    }

    @Test func aWrongPasswordStaysOnThePortalsPageAndSetsNoToken() async throws {
        try await OAuthFlows.with { client, _, _ in
            var browser = HomeBrowser(client)
            let page = try await browser.signIn("eve", password: "wrong")
            #expect(page.text.contains(SignInPage.failedSignIn), "\(page)")
            #expect(browser.cookies[HomeSession.tokenCookie] == nil)
        }
    }

    @Test func aTokenInTheAddressIsNotASignIn() async throws {
        try await OAuthFlows.with { client, _, tokens in
            var browser = HomeBrowser(client)
            let page = try await browser.open("organization.html?token=\(tokens["ada"]!)")
            #expect(page.visibleText.contains("Sign in to see this page"), "\(page)")
            let bearer = try await browser.send(
                .get, "/arcgis/home/user.html", headers: [HTTPField.Name("X-Esri-Authorization")!: "Bearer \(tokens["ada"]!)"])
            #expect(bearer.visibleText.contains("Sign in to see this page"), "\(bearer)")
        }
    }

    @Test func aForgedOrForeignFormIsRefusedAndSignsNobodyOut() async throws {
        try await OAuthFlows.with { client, _, _ in
            var browser = HomeBrowser(client)
            _ = try await browser.signIn("ada")
            let secret = try #require(browser.csrf)
            let token = try #require(browser.cookies[HomeSession.tokenCookie])
            let attempts: [(String, HTTPFields)] = [
                ("", [:]), ("forged-forged-forged-forged-forg", [:]), (secret, [.origin: "https://evil.example"]),
                (secret, [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]),
            ]
            for (csrf, headers) in attempts {
                let refused = try await browser.send(
                    .post, "/arcgis/home/actions/signout", body: ByteBuffer(string: "csrf=\(csrf)"),
                    contentType: "application/x-www-form-urlencoded", headers: headers)
                #expect(refused.status == 403, "\(refused)")
            }
            #expect(browser.cookies[HomeSession.tokenCookie] == token)
            let me = try await OAuthFlows.portalUser(client, bearer: token)
            #expect(me["user"]?["username"]?.stringValue == "ada", "still signed in: \(me)")
        }
    }

    @Test func signingOutRevokesTheSignInsTokens() async throws {
        try await OAuthFlows.with { client, _, _ in
            var browser = HomeBrowser(client)
            _ = try await browser.signIn("ada")
            let token = try #require(browser.cookies[HomeSession.tokenCookie])
            let page = try await browser.submit("signout", [])
            #expect(page.visibleText.contains("You are signed out"), "\(page)")
            #expect(browser.cookies[HomeSession.tokenCookie] == nil && browser.cookies[HomeSession.refreshCookie] == nil)
            let me = try await OAuthFlows.portalUser(client, bearer: token)
            #expect(me["user"]?["username"]?.stringValue != "ada", "the token outlived the sign-out: \(me)")
        }
    }

    @Test func anEndedTokenIsRenewedWithTheRefreshToken() async throws {
        let clock = SettableClock()
        try await OAuthFlows.with(clock: clock) { client, _, _ in
            var browser = HomeBrowser(client)
            _ = try await browser.signIn("eve")
            let first = try #require(browser.cookies[HomeSession.tokenCookie])
            clock.advance(milliseconds: 3 * 60 * 60 * 1000)
            let page = try await browser.open("user.html")
            #expect(page.visibleText.contains("User name eve"), "\(page)")
            #expect(browser.cookies[HomeSession.tokenCookie] != first, "a new token was set")
        }
    }

    @Test func theSignInComesBackOnlyToAPageOfTheHome() async throws {
        try await OAuthFlows.with { client, _, _ in
            for returnTo in ["https://evil.example/x.html", "//evil.example/a.html", "../rest/admin.html", "user.html%0d%0aX:1"] {
                var browser = HomeBrowser(client)
                let start = try await browser.send(.get, "/arcgis/home/signin.html?returnTo=\(HomeGateway.percentEncoded(returnTo))")
                #expect(start.status == 302)
                let page = try await browser.signIn("eve", returnTo: HomeGateway.percentEncoded(returnTo))
                #expect(page.visibleText.contains("Signed in as"), "\(returnTo) → \(page)")
            }
            var browser = HomeBrowser(client)
            let forged = try await browser.open("postsignin.html?code=forged&state=forged")
            #expect(forged.visibleText.contains("The sign-in did not finish here"), "\(forged)")
            #expect(browser.cookies[HomeSession.tokenCookie] == nil)
        }
    }

    @Test func theOrganizationPageIsAnAdminsAndEveryPageCarriesThePolicy() async throws {
        try await OAuthFlows.with { client, _, _ in
            var editor = HomeBrowser(client)
            _ = try await editor.signIn("eve")
            let refused = try await editor.open("organization.html")
            #expect(refused.status == 403, "\(refused)")
            let index = try await editor.open("index.html")
            #expect(!index.text.contains("organization.html\""), "no link to it either")
            var admin = HomeBrowser(client)
            _ = try await admin.signIn("ada")
            let page = try await admin.open("organization.html")
            #expect(page.status == 200, "\(page)")
            #expect(page.headers[.contentSecurityPolicy] == HomePage.contentSecurityPolicy)
            #expect(page.headers[.cacheControl] == "no-store")
            let style = try await admin.open("assets/home.css")
            #expect(style.status == 200 && style.headers[.contentType]?.hasPrefix("text/css") == true)
            let missing = try await admin.open("assets/nothing.js")
            #expect(missing.status == 404)
        }
    }

    @Test func withoutTokenSecurityTheHomeSaysSoAndOffersTheOrganization() async throws {
        try await OAuthFlows.with(options: ServerOptions(scheme: "https", requireAuth: false)) { client, _, _ in
            var browser = HomeBrowser(client)
            let page = try await browser.open("index.html")
            #expect(page.visibleText.contains("Token security is off"), "\(page)")
            #expect(page.text.contains("organization.html\""))
            let organization = try await browser.open("organization.html")
            #expect(organization.status == 200, "\(organization)")
        }
    }
}
