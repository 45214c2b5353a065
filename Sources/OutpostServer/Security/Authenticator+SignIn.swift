import OutpostStorage
import OutpostWire

/// A user name and password checked, as every sign-in checks them (`generateToken` and the
/// OAuth 2.0 sign-in page): throttled per user name and address (`LoginThrottle`), the
/// password hashed off the cooperative pool.
extension Authenticator {
    static let wrongPassword = ArcGISError(kind: .invalidParameter, message: "Unable to generate token.", details: ["Invalid username or password."])

    /// The user `name` and `password` name; `wrongPassword`, or 429 with `Retry-After` while
    /// the throttle makes the caller wait (the password is then not even checked).
    func signIn(name: String, password: String, address: String) async throws -> ServerUser {
        let now = Double(clock.milliseconds()) / 1000
        let wait = throttle.withLockedValue { $0.wait(user: name, address: address, now: now) }
        if wait > 0 {
            throw ArcGISError.tooManyRequests(
                "Too many failed sign-ins for this user or address; try again in \(Int(wait.rounded(.up))) s.",
                retryAfterSeconds: Int(wait.rounded(.up)))
        }
        let users = self.users
        // PBKDF2 with 600,000 rounds takes a core for a while: off the cooperative pool.
        guard let user = try await StoreCall.run({ try users.verify(user: name, password: password) }) else {
            throttle.withLockedValue { $0.failed(user: name, address: address, now: Double(clock.milliseconds()) / 1000) }
            throw Self.wrongPassword
        }
        throttle.withLockedValue { $0.succeeded(user: name, address: address) }
        return user
    }
}
