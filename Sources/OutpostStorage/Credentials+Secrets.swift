import Foundation

extension Credentials {
    /// Whether two hashes are equal, in a time that does not tell where they differ.
    public static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// The lower of the role a token may carry and the user's current one: a token never
    /// gains what its user gained after it was issued, and loses what its user lost.
    public static func effectiveRole(user: UserRole, token: UserRole?) -> UserRole {
        token.map { min($0, user) } ?? user
    }

    /// A new refresh token family: every token rotated from one sign-in shares it.
    public static func newFamily() -> String {
        randomBytes(16).map { String(format: "%02x", $0) }.joined()
    }
}
