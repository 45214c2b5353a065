import Crypto
import CryptoExtras
import OutpostWire

/// A provider's signing keys (JWKS, RFC 7517) that `IDTokenVerifier` can use: RSA keys of
/// 2,048 to 8,192 bits (`kty` RSA, `n`, `e`; RS256) and EC P-256 keys (`kty` EC, `crv` P-256,
/// `x`, `y`; ES256). Other keys, keys meant for encryption (`use` other than `sig`) and keys
/// bound to another algorithm (`alg`) are skipped: providers publish them beside the ones
/// they sign with.
public struct JSONWebKeySet: Sendable {
    /// More keys than any provider publishes; a document with more is not a key set.
    public static let maximumKeys = 64

    /// One key: exactly one of the two is set. Not an enum: its case would be kept in the key
    /// reference's spare bits, which LeakSanitizer cannot follow (the fuzz target's key set was
    /// reported leaked).
    struct PublicKey: Sendable {
        var rsa: _RSA.Signing.PublicKey?
        var p256: P256.Signing.PublicKey?

        var algorithm: String { rsa != nil ? "RS256" : "ES256" }
    }

    struct Key: Sendable {
        var id: String?
        var key: PublicKey
    }

    var keys: [Key]

    public var count: Int { keys.count }

    /// `{"keys":[…]}`: refused when it is not that, or when no key is usable (no ID token
    /// could then be verified: the provider's configuration must change).
    public static func parse(_ document: JSONValue) throws(ArcGISError) -> JSONWebKeySet {
        guard let list = document["keys"]?.arrayValue else { throw OIDCProviderMetadata.refusal("the key set (jwks_uri) has no keys array") }
        guard list.count <= maximumKeys else { throw OIDCProviderMetadata.refusal("the key set has more than \(maximumKeys) keys") }
        let keys = list.compactMap(key)
        guard !keys.isEmpty else { throw OIDCProviderMetadata.refusal("the key set has no RS256 or ES256 signing key") }
        return JSONWebKeySet(keys: keys)
    }

    static func key(_ value: JSONValue) -> Key? {
        guard let object = value.objectValue, let type = object["kty"]?.stringValue else { return nil }
        if let use = object["use"], use.stringValue != "sig" { return nil }
        if let kid = object["kid"], kid.stringValue == nil { return nil }
        let key: PublicKey
        switch type {
        case "RSA":
            // A larger modulus only costs time to verify with.
            guard let n = object["n"]?.stringValue.flatMap(Base64URL.decode), n.count <= 1024,
                let e = object["e"]?.stringValue.flatMap(Base64URL.decode), (1...8).contains(e.count),
                let publicKey = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { return nil }
            key = PublicKey(rsa: publicKey)
        case "EC":
            guard object["crv"]?.stringValue == "P-256", let x = object["x"]?.stringValue.flatMap(Base64URL.decode), x.count == 32,
                let y = object["y"]?.stringValue.flatMap(Base64URL.decode), y.count == 32,
                let publicKey = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { return nil }
            key = PublicKey(p256: publicKey)
        default: return nil
        }
        if let algorithm = object["alg"], algorithm.stringValue != key.algorithm { return nil }
        return Key(id: object["kid"]?.stringValue, key: key)
    }

    /// The key a token's header names: by `kid`, or without one the only key for `algorithm`.
    func key(id: String?, algorithm: String) -> PublicKey? {
        let candidates = keys.filter { $0.key.algorithm == algorithm }
        if let id { return candidates.first { $0.id == id }?.key }
        return candidates.count == 1 ? candidates[0].key : nil
    }
}
