import CLibPQ

/// The rows of one statement, read in place from libpq's result (freed with this value).
/// Text format unless the statement asked for binary results.
public final class PostgresResult: @unchecked Sendable {
    // Read-only after init; libpq results are safe to read from any thread.
    let handle: OpaquePointer
    public let rowCount: Int
    public let columnCount: Int

    init(_ handle: OpaquePointer) {
        self.handle = handle
        rowCount = Int(PQntuples(handle))
        columnCount = Int(PQnfields(handle))
    }

    deinit { PQclear(handle) }

    /// Rows changed by an INSERT, UPDATE or DELETE.
    public var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    public var rows: [PostgresRow] { (0..<rowCount).map { PostgresRow(result: self, index: Int32($0)) } }

    public var first: PostgresRow? { rowCount > 0 ? PostgresRow(result: self, index: 0) : nil }

    public func columnName(_ column: Int) -> String { String(cString: PQfname(handle, Int32(column))) }
}

/// Why a value could not be read as asked.
public struct PostgresDecodingError: Error, Sendable, CustomStringConvertible {
    public var column: Int
    public var expected: String
    public var description: String { "PostgreSQL result column \(column) is not a \(expected)" }
}

/// One row of a result.
public struct PostgresRow: Sendable {
    let result: PostgresResult
    let index: Int32

    public func isNull(_ column: Int) -> Bool { PQgetisnull(result.handle, index, Int32(column)) == 1 }

    /// The value's bytes as sent (text or binary).
    public func raw(_ column: Int) -> UnsafeRawBufferPointer? {
        guard !isNull(column), let value = PQgetvalue(result.handle, index, Int32(column)) else { return nil }
        return UnsafeRawBufferPointer(start: value, count: Int(PQgetlength(result.handle, index, Int32(column))))
    }

    public func string(_ column: Int) -> String? { raw(column).map { String(decoding: $0, as: UTF8.self) } }

    public func int64(_ column: Int) throws -> Int64? {
        guard let text = string(column) else { return nil }
        guard let value = Int64(text) else { throw PostgresDecodingError(column: column, expected: "bigint") }
        return value
    }

    public func int(_ column: Int) throws -> Int? { try int64(column).map { Int($0) } }

    public func double(_ column: Int) throws -> Double? {
        guard let text = string(column) else { return nil }
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard let value = Double(text) else { throw PostgresDecodingError(column: column, expected: "double precision") }
            return value
        }
    }

    public func bool(_ column: Int) throws -> Bool? {
        guard let text = string(column) else { return nil }
        switch text {
        case "t": return true
        case "f": return false
        default: throw PostgresDecodingError(column: column, expected: "boolean")
        }
    }

    /// A `bytea` (or geometry) value: raw in a binary result, `\x…` hex in a text one.
    public func bytes(_ column: Int) throws -> [UInt8]? {
        guard let raw = raw(column) else { return nil }
        if PQfformat(result.handle, Int32(column)) == 1 { return Array(raw) }
        guard raw.count >= 2, raw[0] == UInt8(ascii: "\\"), raw[1] == UInt8(ascii: "x") else {
            return try Self.hex(raw, column: column)
        }
        return try Self.hex(UnsafeRawBufferPointer(rebasing: raw[2...]), column: column)
    }

    private static func hex(_ text: UnsafeRawBufferPointer, column: Int) throws -> [UInt8] {
        func nibble(_ c: UInt8) throws -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: throw PostgresDecodingError(column: column, expected: "hex bytea")
            }
        }
        guard text.count % 2 == 0 else { throw PostgresDecodingError(column: column, expected: "hex bytea") }
        var bytes = [UInt8](repeating: 0, count: text.count / 2)
        for i in 0..<bytes.count { bytes[i] = try nibble(text[2 * i]) << 4 | nibble(text[2 * i + 1]) }
        return bytes
    }

    /// A value that must be there.
    public func required<T>(_ column: Int, _ read: (Int) throws -> T?) throws -> T {
        guard let value = try read(column) else { throw PostgresDecodingError(column: column, expected: "non-null \(T.self)") }
        return value
    }
}
