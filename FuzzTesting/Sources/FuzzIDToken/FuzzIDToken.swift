import Crypto
import Foundation
import FuzzCommon
import OutpostIdentity
import OutpostStorage
import OutpostWire

// Single sign-on's untrusted input (docs/identity.md, "Single sign-on (OpenID Connect)"): what
// an OpenID provider answers (its discovery document, its key set) and the ID token a token
// endpoint returns.
//
// Input: any bytes, read three ways. As JSON, a key set and a discovery document: a document
// that parses has the expected issuer and only https (or loopback http) endpoints. As an ID
// token against a fixed key set. And as the payload of a token this target signs with the
// set's EC key, so the claim checks behind the signature are reached too. A token that
// verifies must carry the fixed issuer, audience and nonce, and not be expired; the user it
// maps to has a name `Credentials.check` takes.

private let issuer = "https://id.example.org/realms/outpost"
private let clientId = "outpost"
private let nonce = "fuzz-nonce"
/// Milliseconds since 1970 (2027-01-15).
private let now: Int64 = 1_800_000_000_000
/// Fixed, so seed tokens signed with it (FuzzTesting/Corpus/FuzzIDToken) verify.
private let signingKey = try! P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 0x11, count: 32))
/// A provider's RSA key (its modulus): generating one here would cost a second, and BoringSSL's
/// key generation shows as a leak to LeakSanitizer.
private let rsaModulus =
    "zMXpVsfL3j5Mv9trNnMMMi54_9nMxUi60trcKf4zA50XcpBZOlsJH3yS9PsDmfmJ1VaQzUtTE-uHEky_ICRQTJGNnkrsSzkK"
    + "kX-SnAoAgzwQ4eByDXExUvvwt2wjSMUlPzl9lhhzGoe7uLnaYV4gij84fENNTLgAHjem-nvQxCtpu1WFmtfziMY0EksCWZ8-"
    + "bIhOZaHorUmQldsbqBkJ1xZmZc-PnsiQhznoIpNiyUcAjd9jZfWa5sjBP_XVytYhpZlU8MLbTVo7IvsN2FagKMjoAIfAjNqo"
    + "EOUE9aiGCzijSO1-qP-FDOMpypSG9cv37PEbdb3r_DzhkCDnAD-5HQ"
private let keys: JSONWebKeySet = {
    let raw = Array(signingKey.publicKey.rawRepresentation)
    let document: JSONValue = [
        "keys": [
            [
                "kty": "EC", "crv": "P-256", "kid": "fuzz-ec", "use": "sig", "x": .string(PKCE.base64URL(Array(raw[0..<32]))),
                "y": .string(PKCE.base64URL(Array(raw[32...]))),
            ],
            ["kty": "RSA", "kid": "fuzz-rsa", "n": .string(rsaModulus), "e": "AQAB"],
        ]
    ]
    let set = try! JSONWebKeySet.parse(document)
    precondition(set.count == 2, "the fixed key set lost a key")
    return set
}()
private let header = PKCE.base64URL(Array(#"{"alg":"ES256","kid":"fuzz-ec"}"#.utf8))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    if let document = try? JSONParser.parse(bytes: input.bytes) {
        if let set = try? JSONWebKeySet.parse(document) {
            fuzzCheck((1...JSONWebKeySet.maximumKeys).contains(set.count), "a key set of \(set.count) keys was taken")
        }
        if let metadata = try? OIDCProviderMetadata.parse(document, expectedIssuer: issuer) {
            fuzzCheck(metadata.issuer == issuer, "another issuer was taken: \(metadata.issuer)")
            for url in [metadata.authorizationEndpoint, metadata.tokenEndpoint, metadata.jwksURI] {
                fuzzCheck(OIDCProviderMetadata.isProviderURL(url), "an endpoint neither https nor loopback was taken: \(url)")
            }
            let location = metadata.authorizationURL(
                clientId: clientId, redirectURI: "https://maps.example.org/cb", state: "s", nonce: nonce, codeChallenge: "c")
            fuzzCheck(
                location.hasPrefix(metadata.authorizationEndpoint) && location.hasSuffix("&code_challenge_method=S256"),
                "odd authorization URL: \(location)")
        }
    }
    check(try? IDTokenVerifier.verify(input.text, keys: keys, issuer: issuer, clientId: clientId, nonce: nonce, now: now))
    // The input as the payload of a token signed here.
    let signingInput = header + "." + PKCE.base64URL(input.bytes)
    if let signature = try? signingKey.signature(for: Data(signingInput.utf8)) {
        let token = signingInput + "." + PKCE.base64URL(Array(signature.rawRepresentation))
        check(try? IDTokenVerifier.verify(token, keys: keys, issuer: issuer, clientId: clientId, nonce: nonce, now: now))
    }
    return 0
}

/// The oracle for a token that verified.
private func check(_ verified: IDTokenClaims?) {
    guard let claims = verified else { return }
    fuzzCheck(claims.issuer == issuer && claims.claims["iss"]?.stringValue == issuer, "a token of another issuer verified")
    fuzzCheck(claims.audience.contains(clientId), "a token for another client verified: \(claims.audience)")
    fuzzCheck(claims.nonce == nonce, "a token of another sign-in verified")
    fuzzCheck(claims.expires > now / 1000 - 60, "an expired token verified")
    fuzzCheck(!claims.subject.isEmpty, "a token without a subject verified")
    for mapping in [OIDCUserMapping(), OIDCUserMapping(usernameClaim: "name", roleClaim: "roles")] {
        guard let user = try? mapping.user(from: claims) else {
            fuzzCheck(false, "a verified token maps to no user")
            return
        }
        fuzzCheck((try? Credentials.check(name: user.name, password: "long enough")) != nil, "an invalid user name: \(user.name)")
    }
}

@main
enum FuzzIDTokenMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
