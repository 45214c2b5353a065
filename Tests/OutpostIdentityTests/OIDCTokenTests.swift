import Crypto
import CryptoExtras
import Foundation
import OutpostIdentity
import OutpostWire
import Testing

/// docs/identity.md, "Single sign-on (OpenID Connect)": the ID token's checks.
@Suite struct OIDCTokenTests {
    let provider = OIDCTestProvider.shared

    /// The refusal's message, which must name the failed check; nil when the token verified.
    func refusal(_ token: String, nonce: String = OIDCTestProvider.nonce, now: Int64 = OIDCTestProvider.now) -> String? {
        do {
            _ = try provider.verify(token, nonce: nonce, now: now)
            return nil
        } catch {
            #expect(error.code == 400 && error.oauthError == "invalid_grant", "\(error)")
            return error.message
        }
    }

    @Test func aGoodRS256TokenVerifiesToItsClaims() throws {
        let claims = try provider.verify(provider.token())
        #expect(claims.issuer == OIDCTestProvider.issuer && claims.subject == "248289761001" && claims.audience == ["outpost"])
        #expect(claims.expires == OIDCTestProvider.now / 1000 + 300 && claims.nonce == OIDCTestProvider.nonce)
        #expect(claims.string("preferred_username") == "ada" && claims.string("exp") == nil)
        #expect(claims.claims == OIDCTestProvider.goodClaims)
    }

    @Test func aGoodES256TokenVerifies() throws {
        let token = provider.token(header: ["alg": "ES256", "kid": "ec-1"], signer: .ec(provider.ec))
        #expect(try provider.verify(token).subject == "248289761001")
    }

    @Test func withoutKidTheOnlyKeyOfTheAlgorithmIsUsed() throws {
        #expect(try provider.verify(provider.token(header: ["alg": "ES256"], signer: .ec(provider.ec))).subject == "248289761001")
        // Two RSA keys would be a guess; the encryption key is skipped, so there is one.
        #expect(try provider.verify(provider.token(header: ["alg": "RS256"])).subject == "248289761001")
    }

    @Test func anotherKeysSignatureIsRefused() {
        #expect(refusal(provider.token(signer: .rsa(provider.otherRSA)))?.contains("signature") == true)
        #expect(
            refusal(provider.token(header: ["alg": "ES256", "kid": "ec-1"], signer: .ec(P256.Signing.PrivateKey())))?.contains("signature") == true)
        // The encryption key is in the document but not in the set.
        #expect(refusal(provider.token(header: ["alg": "RS256", "kid": "enc-1"], signer: .rsa(provider.otherRSA)))?.contains("kid") == true)
    }

    @Test func anAlteredPayloadIsRefused() {
        let parts = provider.token().split(separator: ".").map(String.init)
        let forged = provider.token(["preferred_username": "admin"]).split(separator: ".").map(String.init)
        #expect(refusal([parts[0], forged[1], parts[2]].joined(separator: "."))?.contains("signature") == true)
        // One character of the signature changed.
        var signature = Array(parts[2])
        signature[10] = signature[10] == "A" ? "B" : "A"
        #expect(refusal([parts[0], parts[1], String(signature)].joined(separator: "."))?.contains("signature") == true)
    }

    @Test(arguments: ["none", "HS256", "RS512", "PS256", "ES384", "rs256"])
    func onlyRS256AndES256AreAccepted(algorithm: String) {
        let token = provider.token(header: ["alg": .string(algorithm), "kid": "rsa-1"])
        #expect(refusal(token)?.contains("alg") == true)
        // `none`'s usual form: an empty signature.
        let unsigned = token.split(separator: ".", omittingEmptySubsequences: false).prefix(2).joined(separator: ".") + "."
        #expect(refusal(unsigned)?.contains("alg") == true)
    }

    @Test func anHS256TokenMacedWithThePublicKeyIsRefused() throws {
        // The classic confusion: HMAC keyed with the RSA key's public bytes.
        let header = OIDCTestProvider.base64URL(Array(#"{"alg":"HS256","kid":"rsa-1"}"#.utf8))
        let payload = provider.token().split(separator: ".")[1]
        let input = header + "." + payload
        let key = SymmetricKey(data: try provider.rsa.publicKey.getKeyPrimitives().modulus)
        let mac = OIDCTestProvider.base64URL(Array(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: key)))
        #expect(refusal(input + "." + mac)?.contains("alg") == true)
    }

    @Test func anUnknownKidIsRefused() {
        #expect(refusal(provider.token(header: ["alg": "RS256", "kid": "rsa-2"]))?.contains("kid 'rsa-2'") == true)
        #expect(refusal(provider.token(header: ["alg": "RS256", "kid": 7]))?.contains("kid") == true)
        // An RSA key's kid named with ES256.
        #expect(refusal(provider.token(header: ["alg": "ES256", "kid": "rsa-1"], signer: .ec(provider.ec)))?.contains("kid") == true)
    }

    @Test func criticalHeaderExtensionsAreRefused() {
        #expect(refusal(provider.token(header: ["alg": "RS256", "kid": "rsa-1", "crit": ["b64"], "b64": false]))?.contains("crit") == true)
    }

    @Test func theIssuerMustBeTheProvider() {
        #expect(refusal(provider.token(["iss": "https://id.example.org/realms/other"]))?.contains("iss") == true)
        #expect(refusal(provider.token(["iss": .string(OIDCTestProvider.issuer + "/")]))?.contains("iss") == true)
        #expect(refusal(provider.token(["iss": nil]))?.contains("iss") == true)
    }

    @Test func theAudienceMustNameTheClient() throws {
        #expect(refusal(provider.token(["aud": "someone-else"]))?.contains("aud") == true)
        #expect(refusal(provider.token(["aud": ["a", "b"]]))?.contains("aud") == true)
        #expect(refusal(provider.token(["aud": nil]))?.contains("aud") == true)
        #expect(refusal(provider.token(["aud": []]))?.contains("aud") == true)
        #expect(try provider.verify(provider.token(["aud": ["api", "outpost"], "azp": "outpost"])).audience == ["api", "outpost"])
        #expect(try provider.verify(provider.token(["aud": ["api", "outpost"]])).audience == ["api", "outpost"])
        #expect(refusal(provider.token(["aud": ["api", "outpost"], "azp": "api"]))?.contains("azp") == true)
    }

    @Test func anExpiredTokenIsRefusedAfterTheLeeway() throws {
        let seconds = OIDCTestProvider.now / 1000
        #expect(refusal(provider.token(["exp": .int(seconds - 61)]))?.contains("expired") == true)
        #expect(refusal(provider.token(["exp": .int(seconds - 60)]))?.contains("expired") == true)
        #expect(try provider.verify(provider.token(["exp": .int(seconds - 59)])).subject == "248289761001", "within the leeway")
        #expect(try provider.verify(provider.token(["exp": .double(Double(seconds) + 30.5)])).expires == seconds + 30)
        #expect(refusal(provider.token(["exp": nil]))?.contains("exp") == true)
        #expect(refusal(provider.token(["exp": "tomorrow"]))?.contains("exp") == true)
    }

    @Test func aTokenIssuedInTheFutureIsRefused() throws {
        let seconds = OIDCTestProvider.now / 1000
        #expect(refusal(provider.token(["iat": .int(seconds + 61)]))?.contains("iat") == true)
        #expect(try provider.verify(provider.token(["iat": .int(seconds + 60)])).subject == "248289761001", "within the leeway")
        #expect(refusal(provider.token(["iat": nil]))?.contains("iat") == true)
        #expect(refusal(provider.token(["nbf": .int(seconds + 3600)]))?.contains("nbf") == true)
    }

    @Test func theNonceMustBeThisSignInsOwn() {
        #expect(refusal(provider.token(), nonce: "another")?.contains("nonce") == true)
        #expect(refusal(provider.token(["nonce": nil]))?.contains("nonce") == true)
        #expect(refusal(provider.token(["nonce": 5]))?.contains("nonce") == true)
        #expect(refusal(provider.token(["nonce": ""]), nonce: "")?.contains("nonce") == true, "an empty nonce matches nothing")
    }

    @Test func theSubjectIsRequired() {
        #expect(refusal(provider.token(["sub": nil]))?.contains("sub") == true)
        #expect(refusal(provider.token(["sub": ""]))?.contains("sub") == true)
    }

    @Test func malformedTokensAreRefused() {
        let parts = provider.token().split(separator: ".").map(String.init)
        #expect(refusal(parts[0] + "." + parts[1])?.contains("compact") == true)
        #expect(refusal(provider.token() + ".e30")?.contains("compact") == true)
        #expect(refusal("")?.contains("compact") == true)
        #expect(refusal("!!." + parts[1] + "." + parts[2])?.contains("header") == true)
        #expect(refusal(parts[0] + "." + parts[1] + "." + parts[2] + "=")?.contains("signature") == true, "padding is not base64url")
        #expect(refusal(parts[0] + "." + parts[1] + "." + parts[2].dropLast())?.contains("signature") == true)
        #expect(refusal(OIDCTestProvider.base64URL(Array("[1]".utf8)) + "." + parts[1] + "." + parts[2])?.contains("header") == true)
        // A payload that is not JSON, signed properly.
        let header = parts[0] + "." + OIDCTestProvider.base64URL(Array("not json".utf8))
        let signed = header + "." + OIDCTestProvider.base64URL(provider.signature(of: header, by: .rsa(provider.rsa)))
        #expect(refusal(signed)?.contains("payload") == true)
    }

    @Test func aHugeTokenIsRefusedBeforeAnyWork() {
        let huge = String(repeating: "a", count: IDTokenVerifier.maximumLength) + ".b.c"
        // Its header is base64url of no JSON: only the size check, done first, names the size.
        #expect(refusal(huge)?.contains("longer than") == true)
        // Just under the limit is looked at (and refused for what it is).
        #expect(refusal(String(repeating: "a", count: IDTokenVerifier.maximumLength - 4) + ".b.c")?.contains("longer") == false)
    }
}
