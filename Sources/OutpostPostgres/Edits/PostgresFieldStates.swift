import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

/// The three states of the fields an edit writes to a versioned feature — as its base knew
/// it, as DEFAULT holds it now, as the edit has it — read in one statement for
/// `VersionReconcile` (docs/sync-semantics.md, Versioned data).
///
/// Values are compared as PostgreSQL prints them in the column's own type (an edit's value is
/// cast to it first; a geometry is compared as its WKB), so `2` sent for a double column
/// equals the stored `2.0`, and two geometries are equal when their bytes are.
struct PostgresFieldStates {
    /// One field the edit writes: its column, its type (nil: the geometry) and the SQL of
    /// the edit's value (a parameter, or a column of a joined row).
    struct Written {
        var column: String
        var type: EsriFieldType?
        var edit: String
    }

    /// nil when the base is unknown (the history does not reach back so far).
    var base: [String: String?]?
    var current: [String: String?]
    var edit: [(String, String?)]
    /// The same values as JSON, for the conflict log (geometries as Esri JSON).
    var baseJSON: [String: JSONValue] = [:]
    var currentJSON: [String: JSONValue] = [:]
    var editJSON: [String: JSONValue] = [:]

    var reconciled: VersionReconcile.Outcome { VersionReconcile.reconcile(base: base, current: current, edit: edit) }

    /// The conflict log's `fields` for the fields both sides changed.
    func conflictFields(_ conflicts: [String]) -> JSONValue {
        .array(
            conflicts.map { field in
                [
                    "field": .string(field), "base": baseJSON[field] ?? .null, "default": currentJSON[field] ?? .null,
                    "replica": editJSON[field] ?? .null,
                ]
            })
    }

    /// Reads the states of `written` for the feature `objectId`. `join` adds the relation
    /// the edit's SQL names (with its parameters already in `binds`).
    static func read(
        _ written: [Written], objectId: Int64, layer: StoredLayer, base: PostgresVersionBase, join: String = "",
        binds: [PostgresValue], connection: PostgresConnection
    ) throws -> PostgresFieldStates {
        var binds = binds
        let oid = PostgresQuery.quoted(identifier: layer.definition.objectIdField)
        binds.append(objectId.postgresValue)
        let key = "$\(binds.count)"
        let seenWriter = base.seenSQL("outpost_xid", binds: &binds)
        let seenReplacer = base.seenSQL("outpost_valid_to", binds: &binds)
        var select: [String] = []
        for field in written {
            let column = PostgresQuery.quoted(identifier: field.column)
            if let type = field.type {
                select += ["c.\(column)", "b.\(column)", "CAST(\(field.edit) AS \(PostgresSchema.valueType(type)))"]
            } else {
                select += ["ST_AsBinary(c.\(column))", "ST_AsBinary(b.\(column))", "ST_AsBinary(\(field.edit))"]
            }
        }
        select.append("b.outpost_known")
        let sql = """
            SELECT \(select.joined(separator: ", "))
            FROM (SELECT * FROM \(PostgresQuery.quoted(identifier: layer.tableName)) WHERE \(oid) = \(key)) c
            LEFT JOIN (SELECT *, true AS outpost_known FROM \(PostgresQuery.quoted(identifier: layer.historyTable))
                WHERE \(oid) = \(key) AND \(seenWriter) AND NOT \(seenReplacer) LIMIT 1) b ON true
            \(join)
            """
        guard let row = try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds)).first else {
            throw PostgresEditSession.EditFailure(error: .missing("\(layer.definition.objectIdField) \(objectId)"), objectId: objectId)
        }
        let known = try row.bool(written.count * 3) ?? false
        var states = PostgresFieldStates(base: known ? [:] : nil, current: [:], edit: [])
        for (index, field) in written.enumerated() {
            let (c, b, e) = (index * 3, index * 3 + 1, index * 3 + 2)
            states.current[field.column] = row.string(c)
            if known { states.base?[field.column] = row.string(b) }
            states.edit.append((field.column, row.string(e)))
            func json(_ column: Int) throws -> JSONValue {
                guard let type = field.type else {
                    guard let wkb = try row.bytes(column), let ogc = try? WKB.decode(wkb) else { return .null }
                    return Geometry(ogc: ogc, layerType: layer.definition.geometryType).esriJSON
                }
                return try PostgresFeatures.jsonValue(row, column, type: type)
            }
            states.currentJSON[field.column] = try json(c)
            states.baseJSON[field.column] = known ? try json(b) : .null
            states.editJSON[field.column] = try json(e)
        }
        return states
    }
}

extension PostgresSchema {
    /// A field's column type without its constraints: what an edit's value is cast to.
    static func valueType(_ type: EsriFieldType) -> String {
        switch type {
        case .oid, .integer, .smallInteger, .date: "bigint"
        case .double, .single: "double precision"
        case .string, .guid, .xml, .globalID: "text"
        case .blob: "bytea"
        }
    }
}
