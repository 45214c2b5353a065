import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636), S256 only: the code's exchange must present the
/// verifier whose SHA-256, base64url without padding, is the authorization request's challenge.
public enum PKCE {
    /// A verifier: 43 to 128 of `A-Z a-z 0-9 - . _ ~`.
    public static func isVerifier(_ text: String) -> Bool {
        (43...128).contains(text.utf8.count) && text.utf8.allSatisfy(isUnreserved)
    }

    /// An S256 challenge: 43 base64url characters (32 bytes, no padding).
    public static func isChallenge(_ text: String) -> Bool {
        text.utf8.count == 43
            && text.utf8.allSatisfy { AuthorizationRequest.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    public static func challenge(of verifier: String) -> String {
        base64URL(Array(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Whether `verifier` answers `challenge`, compared in constant time.
    public static func verify(_ verifier: String, challenge: String) -> Bool {
        guard isVerifier(verifier) else { return false }
        let computed = Array(Self.challenge(of: verifier).utf8)
        let expected = Array(challenge.utf8)
        var difference: UInt8 = computed.count == expected.count ? 0 : 1
        for (a, b) in zip(computed, expected) { difference |= a ^ b }
        return difference == 0
    }

    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        AuthorizationRequest.isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }
}
