import Crypto
import Foundation
import OutpostIdentity

/// The `state` sent to the OpenID provider: the portal's own sign-in state (`oauth_state`, a
/// `SealedState`), PKCE's verifier and the ID token's nonce, sealed with AES-GCM under the
/// backend's key as `SealedState` is. Nothing is stored per sign-in; the provider and the
/// browser see only the sealed text; altered or older than `SealedState.lifetime`, it does
/// not open.
struct OIDCSignInState: Sendable, Equatable, Codable {
    /// Tells it from a `SealedState` sealed under the same key.
    var kind = "oidc"
    var portalState: String
    var verifier: String
    var nonce: String
    /// Milliseconds since 1970.
    var issued: Int64

    init(portalState: String, verifier: String, nonce: String, issued: Int64) {
        self.portalState = portalState
        self.verifier = verifier
        self.nonce = nonce
        self.issued = issued
    }

    /// 32 random bytes, base64url: a PKCE verifier (43 characters) or a nonce.
    static func newSecret() -> String {
        PKCE.base64URL(Array(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }))
    }

    func sealed(key: [UInt8]) throws -> String { try Sealing.seal(self, key: key) }

    /// The state `text` seals when genuine and fresh at `now`; 400 `invalid_request` otherwise.
    static func open(_ text: String, key: [UInt8], now: Int64) throws -> OIDCSignInState {
        let refused = OAuthRefusal.invalidRequest("Invalid or expired single sign-on state: sign in again")
        guard let state = Sealing.open(text, as: OIDCSignInState.self, key: key, maximumBytes: 16_384), state.kind == "oidc" else { throw refused }
        guard state.issued <= now + 60_000, now - state.issued <= SealedState.lifetime else { throw refused }
        return state
    }
}
