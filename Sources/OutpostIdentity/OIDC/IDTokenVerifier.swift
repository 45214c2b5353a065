import Crypto
import CryptoExtras
import Foundation
import OutpostWire

/// Checks an ID token (OpenID Connect Core 1.0, section 3.1.3.7) as the token endpoint
/// returned it: its signature by one of the provider's keys, then who issued it, for whom,
/// when, and for which sign-in (the nonce).
public enum IDTokenVerifier {
    /// Larger than any ID token; checked before anything is decoded.
    public static let maximumLength = 64 * 1024

    /// A compact JWS (`header.payload.signature`, base64url): header `alg` RS256 or ES256 only
    /// (`none`, HS*, anything else refused), `kid` chooses the key (or, without one, the only
    /// key of that type), the signature verified (RS256: PKCS#1 v1.5 with SHA-256; ES256: the
    /// raw `r||s`); then `iss` == `issuer`, `aud` (a string or an array) contains `clientId` (and
    /// `azp`, if present while `aud` has several, == `clientId`), `exp` > now - leeway, `iat`
    /// present and not later than now + leeway (`nbf` too, when present), `sub` present,
    /// `nonce` == `nonce`. `now` is in milliseconds. Any failure: 400 `invalid_grant` whose
    /// message says which check failed (it is logged; it tells nothing secret).
    public static func verify(
        _ token: String, keys: JSONWebKeySet, issuer: String, clientId: String, nonce: String, now: Int64, leewaySeconds: Int64 = 60
    ) throws(ArcGISError) -> IDTokenClaims {
        guard token.utf8.count <= maximumLength else { throw refusal("longer than \(maximumLength) bytes") }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw refusal("not a compact JWS (header.payload.signature)") }
        guard let headerBytes = Base64URL.decode(Substring(parts[0])), let header = object(headerBytes) else {
            throw refusal("the header is not base64url JSON")
        }
        guard let algorithm = header["alg"]?.stringValue, OIDCProviderMetadata.supportedAlgorithms.contains(algorithm) else {
            throw refusal("alg '\(header["alg"]?.stringValue?.prefix(20) ?? "?")' is not RS256 or ES256")
        }
        // Extensions the signer marks critical must be understood; Outpost understands none.
        guard header["crit"] == nil else { throw refusal("the header has crit extensions") }
        if let kid = header["kid"], kid.stringValue == nil { throw refusal("kid is not a string") }
        let kid = header["kid"]?.stringValue
        guard let key = keys.key(id: kid, algorithm: algorithm) else {
            throw refusal(kid.map { "no \(algorithm) key has kid '\($0.prefix(100))'" } ?? "no kid, and not exactly one \(algorithm) key")
        }
        guard let signature = Base64URL.decode(Substring(parts[2])) else { throw refusal("the signature is not base64url") }
        let signed = token.utf8.prefix(parts[0].count + 1 + parts[1].count)
        guard isValid(signature, of: Array(signed), by: key) else { throw refusal("the signature does not verify") }
        guard let payloadBytes = Base64URL.decode(Substring(parts[1])), let payload = object(payloadBytes) else {
            throw refusal("the payload is not base64url JSON")
        }
        return try claims(payload, issuer: issuer, clientId: clientId, nonce: nonce, now: now, leewaySeconds: leewaySeconds)
    }

    /// The claims' checks, once the signature is known to be the provider's.
    static func claims(
        _ payload: JSONObject, issuer: String, clientId: String, nonce: String, now: Int64, leewaySeconds: Int64
    ) throws(ArcGISError) -> IDTokenClaims {
        guard let tokenIssuer = payload["iss"]?.stringValue else { throw refusal("no iss") }
        guard tokenIssuer == issuer else { throw refusal("iss '\(tokenIssuer.prefix(200))' is not the provider's") }
        let audience: [String]
        switch payload["aud"] {
        case .string(let one): audience = [one]
        case .array(let many) where !many.isEmpty && many.allSatisfy({ $0.stringValue != nil }): audience = many.compactMap(\.stringValue)
        default: throw refusal("aud is neither a string nor an array of strings")
        }
        guard audience.contains(clientId) else { throw refusal("aud does not name this client") }
        if audience.count > 1, let party = payload["azp"] {
            guard party.stringValue == clientId else { throw refusal("azp is not this client") }
        }
        guard let subject = payload["sub"]?.stringValue, !subject.isEmpty else { throw refusal("no sub") }
        let nowSeconds = now / 1000
        let leeway = min(max(0, leewaySeconds), 366 * 86_400)
        guard let expires = numericDate(payload["exp"]) else { throw refusal("exp is not a date") }
        guard expires > nowSeconds - leeway else { throw refusal("expired") }
        guard let issued = numericDate(payload["iat"]) else { throw refusal("iat is not a date") }
        guard issued <= nowSeconds + leeway else { throw refusal("iat is in the future") }
        if let notBefore = payload["nbf"] {
            guard let date = numericDate(notBefore), date <= nowSeconds + leeway else { throw refusal("nbf is not a date in the past") }
        }
        guard let tokenNonce = payload["nonce"]?.stringValue else { throw refusal("no nonce") }
        guard !nonce.isEmpty, constantTimeEqual(tokenNonce, nonce) else { throw refusal("the nonce is not this sign-in's") }
        return IDTokenClaims(issuer: tokenIssuer, subject: subject, audience: audience, expires: expires, nonce: tokenNonce, claims: payload)
    }

    static func isValid(_ signature: [UInt8], of signed: [UInt8], by key: JSONWebKeySet.PublicKey) -> Bool {
        if let publicKey = key.rsa {
            guard signature.count == (publicKey.keySizeInBits + 7) / 8 else { return false }
            return publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5)
        }
        guard let publicKey = key.p256, signature.count == 64, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
            return false
        }
        return publicKey.isValidSignature(ecdsa, for: signed)
    }

    /// JSON's seconds since 1970 (RFC 7519, 2: fractions allowed, dropped here).
    static func numericDate(_ value: JSONValue?) -> Int64? {
        switch value {
        case .int(let seconds): return seconds
        case .double(let seconds) where seconds.isFinite && abs(seconds) < 1e15: return Int64(seconds.rounded(.down))
        default: return nil
        }
    }

    static func object(_ bytes: [UInt8]) -> JSONObject? {
        (try? JSONParser.parse(bytes: bytes))?.objectValue
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        var difference: UInt8 = x.count == y.count ? 0 : 1
        for (p, q) in zip(x, y) { difference |= p ^ q }
        return difference == 0
    }

    static func refusal(_ check: String) -> ArcGISError {
        OAuthRefusal.invalidGrant("Invalid ID token: " + check)
    }
}
