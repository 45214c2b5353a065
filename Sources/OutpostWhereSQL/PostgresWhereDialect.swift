import OutpostWire

/// PostgreSQL's spelling of a `where` (docs/postgres.md, "Queries"): the same answers as
/// SQLite's. `ILIKE` ignores case as SQLite's LIKE does; dates are epoch milliseconds read
/// through `to_timestamp` in UTC; `STDDEV` and `VAR` are the sample statistics.
public struct PostgresWhereDialect: WhereDialect {
    public init() {}

    public var caseInsensitiveLike: String { "ILIKE" }

    public func castType(_ type: WhereExpression.CastType) -> String {
        switch type {
        case .real: "double precision"
        case .integer: "bigint"
        case .text: type.rawValue
        }
    }

    public func extract(_ part: WhereExpression.DatePart, fromMilliseconds value: String) -> String {
        "CAST(floor(EXTRACT(\(part.rawValue) FROM to_timestamp((\(value)) / 1000.0) AT TIME ZONE 'UTC')) AS bigint)"
    }

    public var currentDate: String { "(CAST(extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC')) AS bigint) * 1000)" }

    public var currentTimestamp: String { "CAST(floor(extract(epoch FROM now()) * 1000) AS bigint)" }

    public func position(of needle: String, in haystack: String) -> String { "strpos(\(haystack), \(needle))" }

    /// PostgreSQL rounds to places only numerics; the answer is read back as a number.
    public func round(_ value: String, places: String?) -> String {
        "CAST(round(CAST(\(value) AS numeric)\(places.map { ", CAST(\($0) AS integer)" } ?? "")) AS double precision)"
    }

    public var sampleStandardDeviation: String { "stddev_samp" }

    public var sampleVariance: String { "var_samp" }
}

extension WhereDialect where Self == PostgresWhereDialect {
    /// PostgreSQL's spelling: `WhereCompiler.compile(where: …, dialect: .postgres)`.
    public static var postgres: PostgresWhereDialect { PostgresWhereDialect() }
}
