import Foundation

/// Base64url without padding (RFC 7515, section 2), as JOSE writes every binary value.
enum Base64URL {
    /// The bytes of `text`, only when written canonically: no padding, no other characters,
    /// unused trailing bits zero. Two spellings of one signature would let a token be altered
    /// unseen; one spelling leaves nothing to alter.
    static func decode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        guard text.utf8.count % 4 != 1,
            text.utf8.allSatisfy({ AuthorizationRequest.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        let bytes = [UInt8](data)
        guard PKCE.base64URL(bytes).utf8.elementsEqual(text.utf8) else { return nil }
        return bytes
    }
}
