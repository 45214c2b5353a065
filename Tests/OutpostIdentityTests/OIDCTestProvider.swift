import Crypto
import CryptoExtras
import Foundation
import OutpostIdentity
import OutpostWire

/// A provider made up in the test: its keys, its key set and the ID tokens it signs.
struct OIDCTestProvider: Sendable {
    static let issuer = "https://id.example.org/realms/outpost"
    static let clientId = "outpost"
    static let nonce = "n-0S6_WzA2Mj"
    /// Milliseconds since 1970: the tests' "now".
    static let now: Int64 = 1_800_000_000_000

    /// Made once: a 2,048-bit key takes a while to generate.
    static let shared = OIDCTestProvider()

    let rsa: _RSA.Signing.PrivateKey
    let otherRSA: _RSA.Signing.PrivateKey
    let ec = P256.Signing.PrivateKey()

    init() {
        rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
        otherRSA = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    static func base64URL(_ data: some DataProtocol) -> String { PKCE.base64URL(Array(data)) }

    static func jwk(rsa key: _RSA.Signing.PublicKey, kid: String?, extra: JSONObject = [:]) -> JSONValue {
        let primitives = try! key.getKeyPrimitives()
        var object: JSONObject = ["kty": "RSA", "n": .string(base64URL(primitives.modulus)), "e": .string(base64URL(primitives.publicExponent))]
        if let kid { object["kid"] = .string(kid) }
        for (name, value) in extra { object[name] = value }
        return .object(object)
    }

    static func jwk(ec key: P256.Signing.PublicKey, kid: String?, extra: JSONObject = [:]) -> JSONValue {
        let raw = Array(key.rawRepresentation)
        var object: JSONObject = ["kty": "EC", "crv": "P-256", "x": .string(base64URL(raw[0..<32])), "y": .string(base64URL(raw[32...]))]
        if let kid { object["kid"] = .string(kid) }
        for (name, value) in extra { object[name] = value }
        return .object(object)
    }

    /// The provider's key set as it would publish it: an RSA key, an EC key, and an
    /// encryption key that must be skipped.
    var keySetDocument: JSONValue {
        [
            "keys": [
                Self.jwk(rsa: rsa.publicKey, kid: "rsa-1", extra: ["use": "sig", "alg": "RS256"]),
                Self.jwk(ec: ec.publicKey, kid: "ec-1", extra: ["use": "sig"]),
                Self.jwk(rsa: otherRSA.publicKey, kid: "enc-1", extra: ["use": "enc"]),
            ]
        ]
    }

    var keySet: JSONWebKeySet { try! JSONWebKeySet.parse(keySetDocument) }

    /// Claims a good token carries, seconds since 1970.
    static var goodClaims: JSONObject {
        let seconds = now / 1000
        return [
            "iss": .string(issuer), "sub": "248289761001", "aud": .string(clientId), "exp": .int(seconds + 300), "iat": .int(seconds - 10),
            "nonce": .string(nonce), "preferred_username": "ada", "email": "ada.lovelace@example.org",
        ]
    }

    enum Signer {
        case rsa(_RSA.Signing.PrivateKey)
        case ec(P256.Signing.PrivateKey)
    }

    /// A compact JWS of `claims` (with `changes` applied; a nil value removes a claim).
    func token(
        _ changes: [String: JSONValue?] = [:], header: JSONObject = ["alg": "RS256", "kid": "rsa-1", "typ": "JWT"], signer: Signer? = nil
    ) -> String {
        var claims = Self.goodClaims
        for (name, value) in changes { claims[name] = value }
        let signingInput =
            Self.base64URL(Array(JSONValue.object(header).jsonText.utf8)) + "."
            + Self.base64URL(Array(JSONValue.object(claims).jsonText.utf8))
        return signingInput + "." + Self.base64URL(signature(of: signingInput, by: signer ?? .rsa(rsa)))
    }

    func signature(of input: String, by signer: Signer) -> [UInt8] {
        switch signer {
        case .rsa(let key): Array(try! key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation)
        case .ec(let key): Array(try! key.signature(for: Data(input.utf8)).rawRepresentation)
        }
    }

    func verify(_ token: String, nonce: String = OIDCTestProvider.nonce, now: Int64 = OIDCTestProvider.now) throws(ArcGISError) -> IDTokenClaims {
        try IDTokenVerifier.verify(token, keys: keySet, issuer: Self.issuer, clientId: Self.clientId, nonce: nonce, now: now)
    }
}
