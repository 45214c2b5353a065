/// A typed attribute value, as a database binds it to a statement parameter: what an edit's
/// attribute becomes once coerced to its field (`FieldValue`), and what a compiled `where`
/// binds for its string literals.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}
