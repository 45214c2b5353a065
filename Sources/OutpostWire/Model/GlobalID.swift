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

    /// A new random GlobalID (version 4 UUID).
    public static func make<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { byte -> String in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }
        return "{" + hex[0..<4].joined() + "-" + hex[4..<6].joined() + "-" + hex[6..<8].joined() + "-"
            + hex[8..<10].joined() + "-" + hex[10..<16].joined() + "}"
    }

    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }
}
