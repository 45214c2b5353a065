import Crypto
import CryptoExtras
import Foundation
import OutpostIdentity
import OutpostWire
import Testing

/// docs/identity.md, "Single sign-on (OpenID Connect)": the provider's discovery document and keys.
@Suite struct OIDCMetadataTests {
    static let issuer = "https://id.example.org/realms/outpost"

    /// A Keycloak-like discovery document.
    static var document: JSONObject {
        [
            "issuer": .string(issuer), "authorization_endpoint": .string(issuer + "/protocol/openid-connect/auth"),
            "token_endpoint": .string(issuer + "/protocol/openid-connect/token"), "jwks_uri": .string(issuer + "/protocol/openid-connect/certs"),
            "response_types_supported": ["code", "none", "id_token", "code id_token"],
            "id_token_signing_alg_values_supported": ["PS256", "RS256", "ES256"],
            "subject_types_supported": ["public"],
        ]
    }

    static func parse(_ changes: [String: JSONValue?] = [:], expectedIssuer: String = issuer) throws(ArcGISError) -> OIDCProviderMetadata {
        var document = Self.document
        for (name, value) in changes { document[name] = value }
        return try OIDCProviderMetadata.parse(.object(document), expectedIssuer: expectedIssuer)
    }

    static func refusal(_ changes: [String: JSONValue?] = [:], expectedIssuer: String = issuer) -> String? {
        do {
            _ = try parse(changes, expectedIssuer: expectedIssuer)
            return nil
        } catch {
            #expect(error.code == 503 && error.oauthError == "server_error", "\(error)")
            return error.message
        }
    }

    @Test func aGoodDocumentParses() throws {
        let metadata = try Self.parse()
        #expect(
            metadata
                == OIDCProviderMetadata(
                    issuer: Self.issuer, authorizationEndpoint: Self.issuer + "/protocol/openid-connect/auth",
                    tokenEndpoint: Self.issuer + "/protocol/openid-connect/token", jwksURI: Self.issuer + "/protocol/openid-connect/certs",
                    idTokenSigningAlgorithms: ["PS256", "RS256", "ES256"]))
        // response_types_supported is optional; a loopback provider may be plain http (tests).
        let local = "http://127.0.0.1:8765"
        let mock = try Self.parse(
            [
                "issuer": .string(local), "authorization_endpoint": .string(local + "/oauth2/authorize"),
                "token_endpoint": .string(local + "/oauth2/token"),
                "jwks_uri": .string(local + "/jwks"), "response_types_supported": nil,
            ], expectedIssuer: local)
        #expect(mock.tokenEndpoint == "http://127.0.0.1:8765/oauth2/token")
        #expect(try Self.parse(["jwks_uri": "http://localhost/jwks"]).jwksURI == "http://localhost/jwks")
        #expect(try Self.parse(["jwks_uri": "http://[::1]:9000/jwks"]).jwksURI == "http://[::1]:9000/jwks")
    }

    @Test func theIssuerMustBeExactlyTheConfiguredOne() {
        #expect(Self.refusal(expectedIssuer: Self.issuer + "/")?.contains("issuer") == true, "no trailing-slash normalisation")
        #expect(Self.refusal(expectedIssuer: "https://evil.example.org/realms/outpost")?.contains("issuer") == true)
        #expect(Self.refusal(expectedIssuer: "HTTPS://id.example.org/realms/outpost")?.contains("issuer") == true)
        #expect(Self.refusal(["issuer": .string(Self.issuer + "?x=1")], expectedIssuer: Self.issuer + "?x=1")?.contains("query") == true)
    }

    @Test(arguments: ["authorization_endpoint", "token_endpoint", "jwks_uri", "issuer"])
    func httpOffLoopbackIsRefused(field: String) {
        let plain = "http://id.example.org/realms/outpost/x"
        let expected = field == "issuer" ? plain : Self.issuer
        #expect(Self.refusal([field: .string(plain)], expectedIssuer: expected)?.contains(field) == true)
        #expect(
            Self.refusal(
                [field: "https://user:pw@id.example.org/x"], expectedIssuer: field == "issuer" ? "https://user:pw@id.example.org/x" : Self.issuer)
                != nil)
        #expect(Self.refusal([field: "ftp://id.example.org/x"], expectedIssuer: field == "issuer" ? "ftp://id.example.org/x" : Self.issuer) != nil)
        #expect(
            Self.refusal(
                [field: "http://127.0.0.2.example.org/x"], expectedIssuer: field == "issuer" ? "http://127.0.0.2.example.org/x" : Self.issuer) != nil)
    }

    @Test(arguments: ["issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "id_token_signing_alg_values_supported"])
    func missingFieldsAreRefused(field: String) {
        #expect(Self.refusal([field: nil])?.contains(field) == true)
        #expect(Self.refusal([field: 42])?.contains(field) == true)
    }

    @Test func theCodeFlowAndAnAlgorithmOutpostChecksAreRequired() {
        #expect(Self.refusal(["response_types_supported": ["id_token", "token id_token"]])?.contains("code") == true)
        #expect(Self.refusal(["response_types_supported": "code"])?.contains("code") == true)
        #expect(Self.refusal(["id_token_signing_alg_values_supported": ["HS256", "none"]])?.contains("RS256") == true)
        #expect(throws: ArcGISError.self) { try OIDCProviderMetadata.parse(["issuer"], expectedIssuer: Self.issuer) }
    }

    @Test func theSecretGoesAsTheProviderTakesIt() throws {
        // Absent, the list is client_secret_basic alone (Discovery 1.0, 3); basic wins when listed.
        #expect(try Self.parse().clientAuthentication == .basic)
        #expect(try Self.parse(["token_endpoint_auth_methods_supported": ["private_key_jwt", "client_secret_basic"]]).clientAuthentication == .basic)
        #expect(
            try Self.parse(["token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"]]).clientAuthentication == .basic)
        let post = try Self.parse(["token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt"]])
        #expect(post.clientAuthentication == .post)
        #expect(Self.refusal(["token_endpoint_auth_methods_supported": ["private_key_jwt", "tls_client_auth"]])?.contains("client_secret") == true)
        #expect(Self.refusal(["token_endpoint_auth_methods_supported": "client_secret_basic"])?.contains("client_secret") == true)

        let sent = post.codeExchange(code: "c1", redirectURI: "https://m/cb", verifier: "v", clientId: "outpost", clientSecret: "s&=:é")
        #expect(sent.authorization == nil)
        #expect(
            sent.form
                == "grant_type=authorization_code&code=c1&redirect_uri=https%3A%2F%2Fm%2Fcb&code_verifier=v&client_id=outpost&client_secret=s%26%3D%3A%C3%A9"
        )
        let basic = try Self.parse().codeExchange(code: "c1", redirectURI: "https://m/cb", verifier: "v", clientId: "out:post", clientSecret: "s p")
        #expect(basic.form == "grant_type=authorization_code&code=c1&redirect_uri=https%3A%2F%2Fm%2Fcb&code_verifier=v")
        // Each part form-encoded before they are joined (RFC 6749, 2.3.1): the id's colon cannot split the pair.
        #expect(basic.authorization == "Basic " + Data("out%3Apost:s%20p".utf8).base64EncodedString())
    }

    @Test func theAuthorizationURLAsksForACodeWithPKCEAndTheNonce() throws {
        let metadata = try Self.parse()
        let url = metadata.authorizationURL(
            clientId: "outpost", redirectURI: "https://maps.example.org/arcgis/sharing/oidc/callback", state: "s t&=", nonce: "n1",
            codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(
            url
                == Self.issuer + "/protocol/openid-connect/auth?response_type=code&client_id=outpost"
                + "&redirect_uri=https%3A%2F%2Fmaps.example.org%2Farcgis%2Fsharing%2Foidc%2Fcallback&scope=openid%20profile%20email"
                + "&state=s%20t%26%3D&nonce=n1&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256")
        var withQuery = metadata
        withQuery.authorizationEndpoint = "https://login.example.org/authorize?p=b2c_signin"
        #expect(
            withQuery.authorizationURL(clientId: "c", redirectURI: "r", state: "s", nonce: "n", codeChallenge: "x")
                .hasPrefix("https://login.example.org/authorize?p=b2c_signin&response_type=code&client_id=c"))
    }
}

/// docs/identity.md, "Single sign-on (OpenID Connect)": which keys of a JWKS are used.
@Suite struct OIDCKeySetTests {
    let provider = OIDCTestProvider.shared

    @Test func rsaAndP256SigningKeysAreKeptOthersSkipped() throws {
        #expect(provider.keySet.count == 2, "the encryption key is skipped")
        let ec384 = P384.Signing.PrivateKey().publicKey.rawRepresentation
        let document: JSONValue = [
            "keys": [
                OIDCTestProvider.jwk(rsa: provider.rsa.publicKey, kid: "a"),
                OIDCTestProvider.jwk(rsa: provider.rsa.publicKey, kid: "b", extra: ["alg": "RS512"]),
                OIDCTestProvider.jwk(ec: provider.ec.publicKey, kid: "c", extra: ["use": "enc"]),
                [
                    "kty": "EC", "crv": "P-384", "x": .string(OIDCTestProvider.base64URL(ec384.prefix(48))),
                    "y": .string(OIDCTestProvider.base64URL(ec384.suffix(48))),
                ],
                ["kty": "oct", "k": "c2VjcmV0"], ["kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"],
                ["kty": "RSA", "n": "AQAB", "e": "AQAB"], ["kty": "EC", "crv": "P-256", "x": "AAAA", "y": "AAAA"], "not a key",
            ]
        ]
        #expect(try JSONWebKeySet.parse(document).count == 1, "only the first RSA key is usable")
    }

    @Test func aDocumentWithoutUsableKeysIsRefused() {
        #expect(throws: ArcGISError.self) { try JSONWebKeySet.parse(["keys": []]) }
        #expect(throws: ArcGISError.self) { try JSONWebKeySet.parse(["keys": [["kty": "oct", "k": "c2VjcmV0"]]]) }
        #expect(throws: ArcGISError.self) { try JSONWebKeySet.parse(["keys": "none"]) }
        #expect(throws: ArcGISError.self) { try JSONWebKeySet.parse([OIDCTestProvider.jwk(ec: provider.ec.publicKey, kid: nil)]) }
        let many = JSONValue.array(Array(repeating: OIDCTestProvider.jwk(ec: provider.ec.publicKey, kid: nil), count: JSONWebKeySet.maximumKeys + 1))
        #expect(throws: ArcGISError.self) { try JSONWebKeySet.parse(["keys": many]) }
    }

    @Test func aSmallRSAKeyIsSkipped() throws {
        let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        #expect(throws: ArcGISError.self) { try JSONWebKeySet.parse(["keys": [OIDCTestProvider.jwk(rsa: small.publicKey, kid: "s")]]) }
    }
}
