import GRDB
import OutpostWire

/// A database error answers as a server fault naming only SQLite's result code: never the
/// statement, a table name or a value (the server log has it whole).
extension DatabaseError: ArcGISErrorConvertible {
    public var arcGISError: ArcGISError {
        .internalError("The database could not complete the request (SQLite error \(resultCode.rawValue)).")
    }
}
