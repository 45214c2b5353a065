import Foundation
import GRDB
import OutpostGeometry
import OutpostWire

extension ReplicaLayerWriter {
    /// `insertAll` for rows given as JSON values aligned with the layer's fields (as a sync
    /// engine reads them from any backend): blobs arrive as base64 text and are written as
    /// bytes, as SpatiaLite stores them.
    public func insertAllRecords(
        logging operation: DeltaOperation? = nil,
        _ produce: (_ insert: ([JSONValue], OGCGeometry?) throws -> Void) throws -> Void
    ) throws {
        let fields = layer.definition.fields
        try queue.inDatabase { db in
            var values: [DatabaseValue] = []
            values.reserveCapacity(fields.count)
            try produce { attributes, geometry in
                values.removeAll(keepingCapacity: true)
                for (value, field) in zip(attributes, fields) { values.append(Self.databaseValue(value, type: field.type)) }
                try insert(values: values, geometry: geometry, db: db)
                if let operation {
                    try log(.feature, globalId: values[globalIdIndex], objectId: values[objectIdIndex], operation, db: db)
                }
            }
        }
    }

    /// A JSON attribute as the replica file stores it.
    public static func databaseValue(_ value: JSONValue, type: EsriFieldType) -> DatabaseValue {
        switch value {
        case .null: .null
        case .int(let integer): integer.databaseValue
        case .double(let double): double.databaseValue
        case .bool(let bool): bool.databaseValue
        case .string(let text): type == .blob ? (Data(base64Encoded: text) ?? Data()).databaseValue : text.databaseValue
        default: value.jsonText.databaseValue
        }
    }
}
