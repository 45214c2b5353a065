import OutpostWire

/// SQL text with `?` placeholders and the values to bind to them, in order.
public struct SQLFragment: Sendable, Equatable {
    public var sql: String
    public var arguments: [SQLValue]

    public init(sql: String, arguments: [SQLValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }
}
