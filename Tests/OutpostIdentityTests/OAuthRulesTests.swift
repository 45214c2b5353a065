import Foundation
import OutpostIdentity
import OutpostStorage
import OutpostWire
import Testing

/// The pure rules of docs/identity.md, row by row.
@Suite struct PKCETests {
    /// RFC 7636, appendix B.
    @Test func theRFCsExampleVerifierAnswersItsChallenge() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.challenge(of: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.verify(verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        #expect(!PKCE.verify(verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cN"))
        #expect(!PKCE.verify("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
    }

    @Test func verifiersAreFortyThreeToOneHundredTwentyEightUnreservedCharacters() {
        #expect(PKCE.isVerifier(String(repeating: "a", count: 43)) && PKCE.isVerifier(String(repeating: "~", count: 128)))
        #expect(!PKCE.isVerifier(String(repeating: "a", count: 42)) && !PKCE.isVerifier(String(repeating: "a", count: 129)))
        #expect(!PKCE.isVerifier(String(repeating: "a", count: 42) + "+"))
    }
}

@Suite struct AuthorizationRequestTests {
    static func parse(_ pairs: [(String, String)]) throws(ArcGISError) -> AuthorizationRequest {
        try AuthorizationRequest.parse(RequestParameters(pairs))
    }

    static let base = [("client_id", "pythonapi"), ("response_type", "token"), ("redirect_uri", "urn:ietf:wg:oauth:2.0:oob")]

    @Test func thePythonAPIsRequestParses() throws {
        let request = try Self.parse(Self.base + [("state", "abc"), ("expiration", "20160"), ("style", "dark"), ("locale", "en-US")])
        #expect(
            request
                == AuthorizationRequest(
                    clientId: "pythonapi", responseType: .token, redirectURI: "urn:ietf:wg:oauth:2.0:oob", state: "abc", minutes: 20160))
        #expect(try Self.parse(Self.base + [("expiration", "-1")]).minutes == Int.max, "-1 asks for the longest allowed")
    }

    @Test(
        arguments: [
            ([("client_id", "pythonapi"), ("redirect_uri", "x")], "invalid_request"),
            ([("client_id", "pythonapi"), ("response_type", "id_token"), ("redirect_uri", "x")], "unsupported_response_type"),
            ([("client_id", "python api"), ("response_type", "code"), ("redirect_uri", "x")], "invalid_request"),
            ([("client_id", "pythonapi"), ("response_type", "code")], "invalid_request"),
            (base + [("expiration", "0")], "invalid_request"),
            (base + [("expiration", "soon")], "invalid_request"),
            (base + [("state", String(repeating: "s", count: 1025))], "invalid_request"),
            (
                [("client_id", "a"), ("response_type", "code"), ("redirect_uri", "x"), ("code_challenge", String(repeating: "a", count: 43))],
                "invalid_request"
            ),
            (
                [
                    ("client_id", "a"), ("response_type", "code"), ("redirect_uri", "x"), ("code_challenge", String(repeating: "a", count: 43)),
                    ("code_challenge_method", "plain"),
                ], "invalid_request"
            ),
            ([("client_id", "a"), ("response_type", "code"), ("redirect_uri", "x"), ("code_challenge_method", "S256")], "invalid_request"),
            (
                [
                    ("client_id", "a"), ("response_type", "code"), ("redirect_uri", "x"), ("code_challenge", "short"),
                    ("code_challenge_method", "S256"),
                ],
                "invalid_request"
            ),
            (
                [
                    ("client_id", "a"), ("response_type", "token"), ("redirect_uri", "x"), ("code_challenge", String(repeating: "a", count: 43)),
                    ("code_challenge_method", "S256"),
                ], "invalid_request"
            ),
        ] as [([(String, String)], String)])
    func malformedRequestsAreRefusedWithTheirOAuthCode(_ pairs: [(String, String)], code: String) {
        #expect(throws: ArcGISError.self) { try Self.parse(pairs) }
        do {
            _ = try Self.parse(pairs)
        } catch {
            #expect(error.oauthError == code && error.code == 400)
            #expect(error.json["error"]?["error"]?.stringValue == code && error.json["error"]?["error_description"]?.stringValue == error.message)
        }
    }

    @Test func anS256ChallengeIsKept() throws {
        let challenge = PKCE.challenge(of: String(repeating: "v", count: 50))
        let request = try Self.parse([
            ("client_id", "app1"), ("response_type", "code"), ("redirect_uri", "https://app.example/cb"), ("code_challenge", challenge),
            ("code_challenge_method", "S256"),
        ])
        #expect(request.codeChallenge == challenge)
    }
}

@Suite struct OAuthClientTests {
    static let portal = ServerAddress(url: "https://maps.example.org:8443/arcgis")

    @Test(arguments: [
        ("urn:ietf:wg:oauth:2.0:oob", true),
        ("https://maps.example.org:8443", true),
        ("https://maps.example.org:8443/arcgis/home/signin.html", true),
        ("https://MAPS.example.org:8443/x", true),
        ("http://maps.example.org:8443", false),
        ("https://maps.example.org", false),
        ("https://maps.example.org.evil.example:8443", false),
        ("https://evil.example@maps.example.org:8443", false),
        ("https://maps.example.org:8443@evil.example", false),
        ("https://www.arcgis.com", false),
        ("javascript:alert(1)", false),
        ("https://maps.example.org:8443/#x", false),
        ("", false),
    ])
    func aBuiltInClientGoesBackOnlyToThePortalOrOutOfBand(_ uri: String, allowed: Bool) {
        #expect(OAuthClient.builtIn("pythonapi").allowsRedirect(to: uri, portal: Self.portal) == allowed)
    }

    @Test func aBuiltInClientOfAPlainHTTPPortalMayGoBackOverHTTP() {
        #expect(
            OAuthClient.builtIn("arcgisonline").allowsRedirect(to: "http://localhost:8080/x", portal: ServerAddress(url: "http://localhost:8080")))
        #expect(!OAuthClient.builtIn("arcgisonline").allowsRedirect(to: "https://localhost:8080/x", portal: nil))
    }

    @Test func aRegisteredAppGoesBackOnlyToItsOwnURIsExactly() {
        let app = RegisteredApp(
            clientId: "abcdefgh12345678", itemId: String(repeating: "a", count: 32), owner: "alice", appType: "browser",
            redirectURIs: ["https://app.example/callback"], registered: 0, modified: 0)
        let client = OAuthClient.registered(app)
        #expect(client.allowsRedirect(to: "https://app.example/callback", portal: Self.portal))
        #expect(client.allowsRedirect(to: OAuthClient.outOfBand, portal: Self.portal))
        for uri in ["https://app.example/callback/", "https://app.example/callback?x=1", "https://app.example", "https://maps.example.org:8443"] {
            #expect(!client.allowsRedirect(to: uri, portal: Self.portal), "\(uri)")
        }
    }
}

@Suite struct SealedStateTests {
    static let key = Array(repeating: UInt8(1), count: 32)
    static let state = SealedState(
        request: AuthorizationRequest(clientId: "pythonapi", responseType: .token, redirectURI: "urn:ietf:wg:oauth:2.0:oob", state: "s"),
        issued: 1_000_000, browserNonce: "nonce")

    @Test func aSealedStateOpensToItselfUntilItLapses() throws {
        let text = try Self.state.sealed(key: Self.key)
        #expect(try SealedState.open(text, key: Self.key, now: 1_000_000 + SealedState.lifetime) == Self.state)
        #expect(throws: ArcGISError.self) { try SealedState.open(text, key: Self.key, now: 1_000_001 + SealedState.lifetime) }
        #expect(throws: ArcGISError.self) { try SealedState.open(text, key: Self.key, now: 1_000_000 - 61_000) }
    }

    @Test func anAlteredForgedOrForeignStateDoesNotOpen() throws {
        let text = try Self.state.sealed(key: Self.key)
        #expect(throws: ArcGISError.self) { try SealedState.open(text, key: Array(repeating: 2, count: 32), now: 1_000_000) }
        var bytes = Array(text.utf8)
        for index in [0, bytes.count / 2, bytes.count - 1] {
            let original = bytes[index]
            bytes[index] = original == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(throws: ArcGISError.self) { try SealedState.open(String(decoding: bytes, as: UTF8.self), key: Self.key, now: 1_000_000) }
            bytes[index] = original
        }
        for forged in ["", "AAAA", "e30", String(repeating: "A", count: 9000), "not base64!"] {
            #expect(throws: ArcGISError.self) { try SealedState.open(forged, key: Self.key, now: 1_000_000) }
        }
    }

    @Test func twoSealsOfOneStateDiffer() throws {
        #expect(try Self.state.sealed(key: Self.key) != Self.state.sealed(key: Self.key), "a fresh nonce each time")
    }
}

@Suite struct OAuthRedirectTests {
    @Test func aCodeGoesInTheQueryAndATokenInTheFragmentWithStateUntouched() {
        let request = AuthorizationRequest(clientId: "a", responseType: .code, redirectURI: "https://app.example/cb?tab=1", state: "x y&z=1#")
        #expect(OAuthRedirect.code("c0de", for: request, approvalURL: "unused") == "https://app.example/cb?tab=1&code=c0de&state=x%20y%26z%3D1%23")
        let token = OAuthRedirect.token(
            "t0k", expiresInSeconds: 7200, user: "alice", ssl: true,
            for: AuthorizationRequest(clientId: "pythonapi", responseType: .token, redirectURI: "https://maps.example.org", state: "s1"),
            approvalURL: "unused")
        #expect(token == "https://maps.example.org#access_token=t0k&token_type=Bearer&expires_in=7200&username=alice&ssl=true&state=s1")
    }

    @Test func outOfBandGoesToTheApprovalPage() {
        let request = AuthorizationRequest(clientId: "pythonapi", responseType: .code, redirectURI: OAuthClient.outOfBand)
        #expect(
            OAuthRedirect.code("c0de", for: request, approvalURL: "https://h/arcgis/sharing/oauth2/approval")
                == "https://h/arcgis/sharing/oauth2/approval?code=c0de")
    }
}

@Suite struct TokenRequestTests {
    @Test func eachGrantTypeParses() throws {
        let verifier = String(repeating: "v", count: 43)
        #expect(
            try TokenRequest.parse(
                RequestParameters([
                    ("grant_type", "authorization_code"), ("client_id", "app"), ("code", "c"), ("redirect_uri", "r"), ("code_verifier", verifier),
                ]))
                == .authorizationCode(clientId: "app", code: "c", redirectURI: "r", verifier: verifier, clientSecret: nil))
        #expect(
            try TokenRequest.parse(RequestParameters([("grant_type", "refresh_token"), ("client_id", "app"), ("refresh_token", "t")]))
                == .refreshToken(clientId: "app", token: "t"))
        #expect(
            try TokenRequest.parse(RequestParameters([("grant_type", "exchange_refresh_token"), ("client_id", "app"), ("refresh_token", "t")]))
                == .exchangeRefreshToken(clientId: "app", token: "t"))
        #expect(
            try TokenRequest.parse(RequestParameters([("grant_type", "client_credentials"), ("client_id", "app"), ("client_secret", "s")]))
                == .clientCredentials(clientId: "app", secret: "s"))
    }

    @Test(
        arguments: [
            ([("client_id", "app")], "invalid_request"),
            ([("grant_type", "password"), ("client_id", "app")], "unsupported_grant_type"),
            ([("grant_type", "refresh_token")], "invalid_client"),
            ([("grant_type", "authorization_code"), ("client_id", "app"), ("redirect_uri", "r")], "invalid_request"),
            (
                [("grant_type", "authorization_code"), ("client_id", "app"), ("code", "c"), ("redirect_uri", "r"), ("code_verifier", "short")],
                "invalid_request"
            ),
            ([("grant_type", "client_credentials"), ("client_id", "app")], "invalid_client"),
        ] as [([(String, String)], String)])
    func malformedTokenRequestsAreRefused(_ pairs: [(String, String)], code: String) {
        do {
            _ = try TokenRequest.parse(RequestParameters(pairs))
            Issue.record("accepted \(pairs)")
        } catch {
            #expect(error.oauthError == code)
        }
    }
}
