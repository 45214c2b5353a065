/// GlobalIDs travel as upper-case braced GUIDs: `{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}`.
public enum GlobalID {
    /// The canonical form of any GUID spelling (any case, with or without braces, padded with
    /// whitespace), or nil. Works on UTF-8 bytes: syncs normalize every GlobalID they carry.
    public static func normalize(_ text: String) -> String? {
        var utf8 = Substring(text).utf8[...]
        while let first = utf8.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { utf8 = utf8.dropFirst() }
        while let last = utf8.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { utf8 = utf8.dropLast() }
        if utf8.first == UInt8(ascii: "{") && utf8.last == UInt8(ascii: "}") { utf8 = utf8.dropFirst().dropLast() }
        guard utf8.count == 36 else { return nil }
        return String(unsafeUninitializedCapacity: 38) { buffer in
            buffer[0] = UInt8(ascii: "{")
            var out = 1
            for (index, byte) in utf8.enumerated() {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard byte == UInt8(ascii: "-") else { return 0 }
                } else {
                    switch byte {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "F"): break
                    case UInt8(ascii: "a")...UInt8(ascii: "f"):
                        buffer[out] = byte - 32
                        out += 1
                        continue
                    default: return 0
                    }
                }
                buffer[out] = byte
                out += 1
            }
            buffer[out] = UInt8(ascii: "}")
            return out + 1
        }.nonEmpty
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
            buffer[out] = UInt8(ascii: "{")
            out += 1
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    buffer[out] = UInt8(ascii: "-")
                    out += 1
                }
                buffer[out] = digits.utf8Start[Int(byte >> 4)]
                buffer[out + 1] = digits.utf8Start[Int(byte & 0x0F)]
                out += 2
            }
            buffer[out] = UInt8(ascii: "}")
            out += 1
            return out
        }
    }

    public static func make() -> String {
        var generator = IdentifierSeed.Generator()
        return make(using: &generator)
    }
}

extension String {
    /// nil for the empty string (a failed in-place build).
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
