/// `COPY … FROM STDIN`'s text format, for bulk loads.
public enum PostgresCopy {
    /// One row: cells separated by tabs, NULL as `\\N`, ended by a newline.
    public static func line(_ cells: [String?]) -> String {
        cells.map { $0.map(escape) ?? "\\N" }.joined(separator: "\t") + "\n"
    }

    /// Backslash, tab, newline and carriage return escaped.
    public static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "\\" || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return text }
        return text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }

    /// Lower-case hex (bytea as `\\x…`, hex EWKB).
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
