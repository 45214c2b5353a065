import Crypto
import Foundation

/// A value sealed with AES-GCM under the backend's key (`OAuthGrantStore.sealingKey`), as
/// base64url text: what the portal hands a browser or a provider to carry and get back
/// unaltered (`SealedState`, the single sign-on's state). Only the canonical spelling opens, so
/// no two texts open to one value.
public enum Sealing {
    public static func seal(_ value: some Encodable, key: [UInt8]) throws -> String {
        let box = try AES.GCM.seal(try JSONEncoder().encode(value), using: SymmetricKey(data: key))
        guard let combined = box.combined else { throw OAuthRefusal.invalidRequest("Invalid state") }
        return PKCE.base64URL(Array(combined))
    }

    /// The value `text` seals under `key`; nil when it is longer than `maximumBytes`, not
    /// canonical base64url, altered, sealed under another key or not a `Value`.
    public static func open<Value: Decodable>(_ text: String, as type: Value.Type, key: [UInt8], maximumBytes: Int) -> Value? {
        guard text.utf8.count <= maximumBytes, let bytes = Base64URL.decode(text), let box = try? AES.GCM.SealedBox(combined: Data(bytes)),
            let plain = try? AES.GCM.open(box, using: SymmetricKey(data: key))
        else { return nil }
        return try? JSONDecoder().decode(type, from: plain)
    }
}
