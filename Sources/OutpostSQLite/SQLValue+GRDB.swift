import Foundation
import GRDB
import OutpostWire

extension SQLValue {
    /// The value to bind, for the server's store and the client's geodatabase alike.
    public var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let i): i.databaseValue
        case .real(let d): d.databaseValue
        case .text(let s): s.databaseValue
        case .blob(let b): Data(b).databaseValue
        }
    }
}
