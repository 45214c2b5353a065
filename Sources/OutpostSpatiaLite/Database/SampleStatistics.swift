import Foundation
import GRDB
import OutpostStorage

/// `stddev` and `var` of `outStatistics` as SQLite aggregates: the sample standard deviation
/// and variance (n − 1), as SQL Server's STDEV/VAR and PostgreSQL's stddev_samp/var_samp,
/// computed with Welford's method (no loss of precision on large values). NULLs are
/// skipped; fewer than two values give NULL.
struct SampleVariance: DatabaseAggregate {
    var count = 0.0
    var mean = 0.0
    var squares = 0.0

    mutating func step(_ values: [DatabaseValue]) {
        guard let value = Double.fromDatabaseValue(values[0]) else { return }
        count += 1
        let delta = value - mean
        mean += delta / count
        squares += delta * (value - mean)
    }

    var variance: Double? { count < 2 ? nil : squares / (count - 1) }

    func finalize() -> (any DatabaseValueConvertible)? { variance }
}

struct SampleStandardDeviation: DatabaseAggregate {
    var variance = SampleVariance()

    mutating func step(_ values: [DatabaseValue]) { variance.step(values) }

    func finalize() -> (any DatabaseValueConvertible)? { variance.variance.map { $0.squareRoot() } }
}

extension SpatiaLiteBackend {
    /// Registered on every connection of the store.
    static let statisticFunctions = [
        DatabaseFunction("outpost_var", argumentCount: 1, pure: true, aggregate: SampleVariance.self),
        DatabaseFunction("outpost_stddev", argumentCount: 1, pure: true, aggregate: SampleStandardDeviation.self),
    ]
}
