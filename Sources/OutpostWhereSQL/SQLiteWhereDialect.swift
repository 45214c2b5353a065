import OutpostWire

/// SQLite's spelling (the SpatiaLite backend, and the client's replica files): dates are
/// epoch milliseconds read through `strftime`; `STDDEV` and `VAR` are the store's sample
/// statistics, registered on each connection as `outpost_stddev` and `outpost_var`.
public struct SQLiteWhereDialect: WhereDialect {
    public init() {}

    // SQLite's LIKE ignores ASCII case already.
    public var caseInsensitiveLike: String { "LIKE" }

    public func castType(_ type: WhereExpression.CastType) -> String { type.rawValue }

    public func extract(_ part: WhereExpression.DatePart, fromMilliseconds value: String) -> String {
        let format =
            switch part {
            case .year: "%Y"
            case .month: "%m"
            case .day: "%d"
            case .hour: "%H"
            case .minute: "%M"
            case .second: "%S"
            }
        return "CAST(strftime('\(format)', (\(value)) / 1000, 'unixepoch') AS INTEGER)"
    }

    public var currentDate: String { "(CAST(strftime('%s', 'now', 'start of day') AS INTEGER) * 1000)" }

    public var currentTimestamp: String { "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)" }

    public func position(of needle: String, in haystack: String) -> String { "instr(\(haystack), \(needle))" }

    public func round(_ value: String, places: String?) -> String { "round(\(value)\(places.map { ", \($0)" } ?? ""))" }

    public var sampleStandardDeviation: String { "outpost_stddev" }

    public var sampleVariance: String { "outpost_var" }
}

extension WhereDialect where Self == SQLiteWhereDialect {
    /// SQLite's spelling: `WhereCompiler.compile(where: …, dialect: .sqlite)`.
    public static var sqlite: SQLiteWhereDialect { SQLiteWhereDialect() }
}
