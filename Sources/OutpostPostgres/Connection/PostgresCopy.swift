/// `COPY … FROM STDIN`'s text format, for bulk loads.
public enum PostgresCopy {
    /// How many bytes a load encodes before handing them to the connection: big enough that
    /// a write is rare, small enough that memory stays flat and the server starts early.
    public static let chunkSize = 1 << 20

    /// Rows being written: cells separated by tabs, NULL as `\N`, each row ended by `end()`.
    public struct RowBuffer {
        public private(set) var bytes: [UInt8] = []
        private var atRowStart = true

        /// `capacity`: the bytes to hold before growing (a load's chunk; a single row needs none).
        public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

        /// One cell, escaped (nil: NULL).
        public mutating func append(_ cell: String?) {
            separate()
            guard let cell else { return bytes.append(contentsOf: Self.null) }
            for byte in cell.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                default: bytes.append(byte)
                }
            }
        }

        /// One cell of `prefix` then `value` in lower-case hex, which needs no escaping (nil: NULL).
        public mutating func appendHex(_ value: [UInt8]?, prefix: [UInt8] = []) {
            separate()
            guard let value else { return bytes.append(contentsOf: Self.null) }
            bytes.append(contentsOf: prefix)
            PostgresCopy.appendHex(value, to: &bytes)
        }

        /// Ends the row.
        public mutating func end() {
            bytes.append(UInt8(ascii: "\n"))
            atRowStart = true
        }

        /// The rows written so far, leaving the buffer empty (its capacity kept).
        public mutating func take() -> [UInt8] {
            defer { bytes.removeAll(keepingCapacity: true) }
            return bytes
        }

        private mutating func separate() {
            if !atRowStart { bytes.append(UInt8(ascii: "\t")) }
            atRowStart = false
        }

        private static let null: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "N")]
    }

    /// One row: cells separated by tabs, NULL as `\\N`, ended by a newline.
    public static func line(_ cells: [String?]) -> String {
        var row = RowBuffer()
        for cell in cells { row.append(cell) }
        row.end()
        return String(decoding: row.bytes, as: UTF8.self)
    }

    /// Lower-case hex (bytea as `\\x…`, hex EWKB).
    public static func hex(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        appendHex(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendHex(_ bytes: [UInt8], to out: inout [UInt8]) {
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
    }

    private static let digits = Array("0123456789abcdef".utf8)
}
