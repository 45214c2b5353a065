/// GlobalIDs travel as upper-case braced GUIDs: `{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}`.
public enum GlobalID {
    /// The canonical form of any GUID spelling (any case, with or without braces), or nil.
    public static func normalize(_ text: String) -> String? {
        var hex = text.trimmingWhitespace()
        if hex.hasPrefix("{") && hex.hasSuffix("}") { hex = String(hex.dropFirst().dropLast()) }
        let groups = hex.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.count == 5, zip(groups, [8, 4, 4, 4, 12]).allSatisfy({ group, length in
            group.count == length && group.unicodeScalars.allSatisfy { $0.properties.isASCIIHexDigit }
        }) else { return nil }
        return "{" + hex.uppercased() + "}"
    }

    /// A new random GlobalID (version 4 UUID), formatted without intermediate strings:
    /// bulk imports make a million of these.
    public static func make<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * i))
            bytes[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * i))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let digits: StaticString = "0123456789ABCDEF"
        return String(unsafeUninitializedCapacity: 38) { buffer in
            var out = 0
            buffer[out] = UInt8(ascii: "{"); out += 1
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { buffer[out] = UInt8(ascii: "-"); out += 1 }
                buffer[out] = digits.utf8Start[Int(byte >> 4)]
                buffer[out + 1] = digits.utf8Start[Int(byte & 0x0F)]
                out += 2
            }
            buffer[out] = UInt8(ascii: "}"); out += 1
            return out
        }
    }

    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }
}
