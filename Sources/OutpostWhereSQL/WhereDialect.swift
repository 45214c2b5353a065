import OutpostWire

/// How one database spells what `WhereCompiler` emits where databases differ: the same meaning
/// in each backend's SQL (docs/postgres.md, "Queries"). The rest — operators, `IN`,
/// `BETWEEN`, `IS NULL`, the common scalar functions, bound literals — is the compiler's.
/// Arguments arrive as SQL the compiler made; a dialect only arranges them.
public protocol WhereDialect: Sendable {
    /// The LIKE operator that ignores ASCII case, as ArcGIS's LIKE does.
    var caseInsensitiveLike: String { get }
    /// The type a `CAST(… AS type)` names.
    func castType(_ type: WhereExpression.CastType) -> String
    /// A date part, as an integer, of epoch milliseconds in UTC (`EXTRACT(part FROM value)`).
    func extract(_ part: WhereExpression.DatePart, fromMilliseconds value: String) -> String
    /// Today's midnight in UTC as epoch milliseconds (`CURRENT_DATE`).
    var currentDate: String { get }
    /// Now as integer epoch milliseconds (`CURRENT_TIMESTAMP`, `NOW()`).
    var currentTimestamp: String { get }
    /// The 1-based position of `needle` in `haystack`, 0 when absent (`POSITION(needle IN haystack)`).
    func position(of needle: String, in haystack: String) -> String
    /// `value` rounded to `places` decimals (none: to an integer), read back as a number.
    func round(_ value: String, places: String?) -> String
    /// The sample standard deviation and variance aggregates (`STDDEV`, `VAR`; the other
    /// statistics are spelled alike).
    var sampleStandardDeviation: String { get }
    var sampleVariance: String { get }
}

extension WhereDialect {
    /// The aggregate function computing a statistic (`outStatistics`, and aggregates in a `having`).
    public func aggregate(_ statistic: OutStatistic.Kind) -> String {
        switch statistic {
        case .stddev: sampleStandardDeviation
        case .var: sampleVariance
        default: statistic.rawValue
        }
    }
}
