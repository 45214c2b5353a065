import Crypto
import CryptoExtras
import Foundation

/// The rules of `UserDirectory` every backend shares: which names and passwords are accepted,
/// how a password is hashed and checked, and how tokens are made and stored.
public enum Credentials {
    /// Throws `UserFailure` for a name or password a directory must refuse.
    public static func check(name: String, password: String) throws(UserFailure) {
        guard (1...64).contains(name.count), name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_.-".contains($0)) }) else {
            throw UserFailure.invalidName(name)
        }
        // Paths take a user's name or id (32 hex digits): a name like an id would be ambiguous.
        guard !PortalNames.isValidId(name.lowercased()) else { throw UserFailure.nameLikeAnId(name) }
        guard name.lowercased() != PortalNames.serverOwner else { throw UserFailure.reservedName(name) }
        guard password.count >= 8 else { throw UserFailure.weakPassword }
    }

    /// `count` bytes from the system's secure generator.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// PBKDF2-HMAC-SHA256, 32 bytes.
    public static func passwordHash(_ password: String, salt: [UInt8], rounds: Int) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Data(password.utf8), salt: Data(salt), using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: rounds)
        return key.withUnsafeBytes { [UInt8]($0) }
    }

    /// Whether `password` hashes to `stored`, compared in constant time.
    public static func verify(_ password: String, stored: [UInt8], salt: [UInt8], rounds: Int) throws -> Bool {
        let computed = try passwordHash(password, salt: salt, rounds: rounds)
        var difference: UInt8 = stored.count == computed.count ? 0 : 1
        for (a, b) in zip(stored, computed) { difference |= a ^ b }
        return difference == 0
    }

    /// The same work as a verification, for an unknown user: no timing difference to probe names with.
    public static func spendVerificationTime(_ password: String) {
        _ = try? passwordHash(password, salt: [UInt8](repeating: 0, count: 16), rounds: passwordRounds)
    }

    /// A new token: 32 random bytes in hex.
    public static func newToken() -> String {
        randomBytes(32).map { String(format: "%02x", $0) }.joined()
    }

    /// What is stored of a token: its SHA-256, so a copy of the database hands out no live token.
    public static func tokenHash(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }
}
