/// Why a `where` or `having` clause is refused, said of the clause: whoever knows the request
/// parameter that carried it names that (the HTTP layer, the replica planner).
public enum WhereClauseError: Error, Sendable, Equatable, CustomStringConvertible, ArcGISErrorConvertible {
    /// Outside the grammar: the parser's message and position.
    case syntax(WhereParser.Error)
    /// A name that is none of the layer's fields.
    case unknownField(String)
    /// A function no backend offers.
    case unsupportedFunction(String)
    /// A function called with a number of arguments outside `takes`.
    case wrongArgumentCount(function: String, takes: ClosedRange<Int>)
    /// An aggregate (`having` only) of something other than one field.
    case aggregateOfNotAField(String)
    /// A LIKE pattern longer than `limit` bytes (SQLite refuses 50,000 only while running).
    case likePatternTooLong(limit: Int)
    /// An ESCAPE that is not one character in quotes or NULL (`WhereExpression.escapeProblem`).
    case invalidEscape(String)
    /// A number that is not finite.
    case numberOutOfRange
    /// Operands nested deeper than the databases' parsers take (`WhereValidator.maximumNestingCost`).
    case nestedTooDeeply

    public var description: String {
        switch self {
        case .syntax(let error): error.description
        case .unknownField(let name): "unknown field '\(name)'"
        case .unsupportedFunction(let name): "unsupported function \(name)"
        case .wrongArgumentCount(let name, let range):
            "\(name) takes \(range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)") argument(s)"
        case .aggregateOfNotAField(let name): "\(name) takes one field"
        case .likePatternTooLong(let limit): "a LIKE pattern is longer than \(limit) bytes"
        case .invalidEscape(let problem): problem
        case .numberOutOfRange: "number out of range"
        case .nestedTooDeeply: "nested too deeply for the database (simplify the clause)"
        }
    }

    public var arcGISError: ArcGISError { .invalidQuery(description) }
}
