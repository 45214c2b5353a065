import OutpostWire

/// The text of an API key token and its lifetime (docs/identity.md, "API keys: issuing").
///
/// `AAPK` (slot 0, the app's `apiKey`) or `AAPT` (the `apiToken` slots 1 and 2), 64 hex digits
/// of 32 random bytes, the slot digit, then 9 more random hex digits: the slot sits at index
/// `count - 10`, where ArcGIS REST JS reads it (`slotForKey`).
public enum APIKeyToken {
    public static let slots = 0...2
    /// The longest a token lives, and the furthest ahead an expiration date may be set.
    public static let maximumLifetime: Int64 = 365 * 24 * 3_600_000
    static let length = 4 + 64 + 1 + 9

    /// A new token for `slot` (0, 1 or 2).
    public static func make(slot: Int) -> String {
        precondition(slots.contains(slot), "an API key slot is 0, 1 or 2")
        var random = SystemRandomNumberGenerator()
        func hex(_ count: Int) -> String {
            String((0..<count).map { _ in hexDigits[Int(random.next(upperBound: UInt8(16)))] })
        }
        return (slot == 0 ? "AAPK" : "AAPT") + hex(64) + String(slot) + hex(9)
    }

    /// The slot of a token of this shape; nil for any other text.
    public static func slot(of token: String) -> Int? {
        let bytes = Array(token.utf8)
        guard bytes.count == length else { return nil }
        let prefix = String(decoding: bytes[0..<4], as: UTF8.self)
        guard prefix == "AAPK" || prefix == "AAPT" else { return nil }
        let digits = bytes[4...]
        guard digits.enumerated().allSatisfy({ $0.offset == 64 || isHexDigit($0.element) }) else { return nil }
        let slot = Int(bytes[length - 10]) - Int(UInt8(ascii: "0"))
        guard slots.contains(slot), (slot == 0) == (prefix == "AAPK") else { return nil }
        return slot
    }

    /// When a token issued at `now` ends: the slot's expiration date when one is set (400 when
    /// it has passed), else a year from now.
    public static func expiry(configured: Int64?, now: Int64) throws(ArcGISError) -> Int64 {
        guard let configured else { return now + maximumLifetime }
        guard configured > now else {
            throw ArcGISError.invalidParameter("apiToken", "the slot's expiration date has passed: set a new one with updateItem")
        }
        return min(configured, now + maximumLifetime)
    }

    /// An expiration date as `updateItem` takes it (`apiToken1ExpirationDate`): milliseconds
    /// since 1970, or -1 for none (nil); a date past or more than a year ahead is refused.
    public static func expirationDate(_ text: String, parameter: String, now: Int64) throws(ArcGISError) -> Int64? {
        guard let value = Int64(text) else {
            throw ArcGISError.invalidParameter(parameter, "milliseconds since 1970, or -1 for none")
        }
        if value == -1 { return nil }
        guard value > now, value <= now + maximumLifetime else {
            throw ArcGISError.invalidParameter(parameter, "a date in the coming 365 days (milliseconds since 1970), or -1 for none")
        }
        return value
    }

    static let hexDigits = Array("0123456789abcdef")

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (97...102).contains(byte)
    }
}
