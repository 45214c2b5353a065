import OutpostWire

/// A layer column a `where` may name: its SQL spelling and its Esri type.
public struct WhereColumn: Sendable, Equatable {
    public var sql: String
    public var type: EsriFieldType

    public init(sql: String, type: EsriFieldType) {
        self.sql = sql
        self.type = type
    }
}
