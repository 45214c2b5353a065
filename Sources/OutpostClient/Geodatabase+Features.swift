import Foundation
import GRDB
import OutpostGeoPackage
import OutpostGeometry
import OutpostSQLite
import OutpostWhereSQL
import OutpostWire

/// Local queries and edits. Attribute filters are parsed (`WhereCompiler`), never pasted
/// into SQL; envelope filters use the layer's R-tree.
extension Geodatabase {
    /// The features of a layer matching `where` (SQL-92 as on the server, dates compared as
    /// epoch milliseconds) and intersecting `envelope` (in the replica's spatial reference).
    public func query(_ table: GeodatabaseFeatureTable, where text: String? = nil, envelope: Envelope? = nil) throws -> [LocalFeature] {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        if let text, !text.trimmingCharacters(in: .whitespaces).isEmpty {
            let fragment = try WhereCompiler.compile(where: text, columns: Self.resolver(for: table), dialect: .sqlite)
            conditions.append(fragment.sql)
            arguments += fragment.arguments.map(\.databaseValue)
        }
        var join = ""
        if let envelope, table.hasGeometry {
            let rtree = "rtree_\(table.tableName)_\(GeoPackageSchema.geometryColumn)"
            join = " JOIN \(rtree.quotedDatabaseIdentifier) r ON r.id = t.\(table.objectIdField.quotedDatabaseIdentifier)"
            conditions.append("r.minx <= ? AND r.maxx >= ? AND r.miny <= ? AND r.maxy >= ?")
            arguments += [envelope.xmax, envelope.xmin, envelope.ymax, envelope.ymin].map(\.databaseValue)
        }
        let whereSQL = conditions.isEmpty ? "" : " WHERE " + conditions.map { "(\($0))" }.joined(separator: " AND ")
        let sql =
            "SELECT \(Self.selectList(table)) FROM \(table.tableName.quotedDatabaseIdentifier) t\(join)\(whereSQL) ORDER BY t.\(table.objectIdField.quotedDatabaseIdentifier)"
        return try queue.inDatabase { db in
            try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { try Self.feature($0, table: table) }
        }
    }

    /// The feature with this GlobalID, if the geodatabase holds it.
    public func feature(globalId: String, in table: GeodatabaseFeatureTable) throws -> LocalFeature? {
        let id = GlobalID.normalize(globalId) ?? globalId
        return try queue.inDatabase { db in
            try Row.fetchOne(
                db,
                sql:
                    "SELECT \(Self.selectList(table)) FROM \(table.tableName.quotedDatabaseIdentifier) t WHERE t.\(table.globalIdField.quotedDatabaseIdentifier) = ?",
                arguments: [id]
            ).map { try Self.feature($0, table: table) }
        }
    }

    public func count(_ table: GeodatabaseFeatureTable) throws -> Int {
        try queue.inDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.tableName.quotedDatabaseIdentifier)") ?? 0 }
    }

    // MARK: Edits

    /// Adds a feature; returns it with its local OBJECTID (provisional until synced) and its
    /// GlobalID (given, or made here).
    @discardableResult
    public func add(_ feature: LocalFeature, to table: GeodatabaseFeatureTable) throws -> LocalFeature {
        try addAll([feature], to: table)[0]
    }

    /// Adds features in one statement plan (fast path for bulk edits in a transaction).
    @discardableResult
    public func addAll(_ features: [LocalFeature], to table: GeodatabaseFeatureTable) throws -> [LocalFeature] {
        let t = table.tableName.quotedDatabaseIdentifier
        let oid = table.objectIdField
        return try edit { db in
            // OBJECTIDs are given here, in order, as AUTOINCREMENT would: rows then go in by
            // multi-row INSERTs (each statement with triggers pays for a statement journal).
            var next =
                max(
                    try Int64.fetchOne(db, sql: "SELECT max(\(oid.quotedDatabaseIdentifier)) FROM \(t)") ?? 0,
                    try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table.tableName]) ?? 0) + 1
            var added: [LocalFeature] = []
            added.reserveCapacity(features.count)
            var pending: [[DatabaseValue]] = []
            var pendingColumns: [String] = []
            func flush() throws {
                guard !pending.isEmpty else { return }
                let row = "(" + Array(repeating: "?", count: pendingColumns.count).joined(separator: ", ") + ")"
                try db.cachedStatement(
                    sql: """
                        INSERT INTO \(t) (\(pendingColumns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")))
                        VALUES \(Array(repeating: row, count: pending.count).joined(separator: ", "))
                        """
                ).execute(arguments: StatementArguments(pending.flatMap { $0 }))
                pending.removeAll(keepingCapacity: true)
            }
            for var feature in features {
                if let subtypes = table.subtypes { feature.attributes = subtypes.addingDefaults(to: feature.attributes) }
                var values = try Self.columnValues(feature, table: table, srsId: table.srsId, includeGlobalId: true)
                if values[table.globalIdField] == nil || values[table.globalIdField] == .null {
                    values[table.globalIdField] = GlobalID.make().databaseValue
                }
                values[oid] = next.databaseValue
                let columns = values.keys.sorted()
                if columns != pendingColumns || pending.count >= max(1, min(100, 30_000 / columns.count)) {
                    try flush()
                    pendingColumns = columns
                }
                pending.append(columns.map { values[$0]! })
                var result = feature
                result.attributes[oid] = .int(next)
                result.attributes[table.globalIdField] = String.fromDatabaseValue(values[table.globalIdField]!).map { .string($0) } ?? .null
                added.append(result)
                next += 1
            }
            try flush()
            return added
        }
    }

    /// Updates the attributes given (and the geometry, when set) of the feature with the
    /// feature's GlobalID.
    public func update(_ feature: LocalFeature, in table: GeodatabaseFeatureTable) throws {
        guard let text = feature[table.globalIdField]?.stringValue, let globalId = GlobalID.normalize(text) else {
            throw ClientError.geodatabase("an update needs the feature's \(table.globalIdField)")
        }
        let t = table.tableName.quotedDatabaseIdentifier
        let gid = table.globalIdField.quotedDatabaseIdentifier
        try edit { db in
            // The subtype a partial update leaves in place decides the domains it meets.
            var stored: Int64?
            if let subtypes = table.subtypes, subtypes.needsStoredCode(toCheck: feature.attributes), let field = table.field(named: subtypes.field) {
                stored = try Int64.fetchOne(
                    db, sql: "SELECT \(field.name.quotedDatabaseIdentifier) FROM \(t) WHERE \(gid) = ?", arguments: [globalId])
            }
            var values = try Self.columnValues(feature, table: table, srsId: table.srsId, includeGlobalId: false, storedSubtype: stored)
            values[table.objectIdField] = nil
            guard !values.isEmpty else { return }
            let columns = values.keys.sorted()
            // Prepared once per column set: preparing compiles the table's triggers anew.
            try db.cachedStatement(
                sql: "UPDATE \(t) SET \(columns.map { "\($0.quotedDatabaseIdentifier) = ?" }.joined(separator: ", ")) WHERE \(gid) = ?"
            )
            .execute(arguments: StatementArguments(columns.map { values[$0]! } + [globalId.databaseValue]))
            guard db.changesCount == 1 else { throw ClientError.geodatabase("no feature \(globalId) in \(table.name)") }
        }
    }

    /// Deletes a feature (and its attachments).
    public func delete(globalId text: String, from table: GeodatabaseFeatureTable) throws {
        let globalId = GlobalID.normalize(text) ?? text
        try edit { db in
            try db.cachedStatement(
                sql: "DELETE FROM \(table.tableName.quotedDatabaseIdentifier) WHERE \(table.globalIdField.quotedDatabaseIdentifier) = ?"
            )
            .execute(arguments: [globalId])
            guard db.changesCount == 1 else { throw ClientError.geodatabase("no feature \(globalId) in \(table.name)") }
        }
    }

    // MARK: Attachments

    public func attachments(of featureGlobalId: String, in table: GeodatabaseFeatureTable) throws -> [LocalAttachment] {
        guard let attachmentTable = table.attachmentTable else { return [] }
        let parent = GlobalID.normalize(featureGlobalId) ?? featureGlobalId
        return try queue.inDatabase { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT GLOBALID, REL_GLOBALID, ATTACHMENTID, ATT_NAME, content_type, data FROM \(attachmentTable.quotedDatabaseIdentifier)
                    WHERE REL_GLOBALID = ? ORDER BY id
                    """, arguments: [parent]
            ).map {
                LocalAttachment(globalId: $0[0], parentGlobalId: $0[1], attachmentId: $0[2], name: $0[3], contentType: $0[4], data: $0[5])
            }
        }
    }

    /// Adds an attachment to a feature; returns its GlobalID.
    @discardableResult
    public func addAttachment(
        to featureGlobalId: String, in table: GeodatabaseFeatureTable, name: String, contentType: String, data: Data
    ) throws -> String {
        guard let attachmentTable = table.attachmentTable else {
            throw ClientError.unsupported("the replica carries no attachments for \(table.name)")
        }
        let parent = GlobalID.normalize(featureGlobalId) ?? featureGlobalId
        let globalId = GlobalID.make()
        try edit { db in
            guard
                try Bool.fetchOne(
                    db,
                    sql:
                        "SELECT count(*) > 0 FROM \(table.tableName.quotedDatabaseIdentifier) WHERE \(table.globalIdField.quotedDatabaseIdentifier) = ?",
                    arguments: [parent]) == true
            else { throw ClientError.geodatabase("no feature \(parent) in \(table.name)") }
            try db.execute(
                sql: """
                    INSERT INTO \(attachmentTable.quotedDatabaseIdentifier)(data, content_type, GLOBALID, REL_GLOBALID, ATT_NAME, DATA_SIZE)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [data, contentType, globalId, parent, name, data.count])
        }
        return globalId
    }

    public func deleteAttachment(globalId text: String, in table: GeodatabaseFeatureTable) throws {
        guard let attachmentTable = table.attachmentTable else {
            throw ClientError.unsupported("the replica carries no attachments for \(table.name)")
        }
        let globalId = GlobalID.normalize(text) ?? text
        try edit { db in
            try db.execute(sql: "DELETE FROM \(attachmentTable.quotedDatabaseIdentifier) WHERE GLOBALID = ?", arguments: [globalId])
            guard db.changesCount == 1 else { throw ClientError.geodatabase("no attachment \(globalId)") }
        }
    }

    // MARK: Values

    static func selectList(_ table: GeodatabaseFeatureTable) -> String {
        var columns = table.fields.map { "t.\($0.name.quotedDatabaseIdentifier)" }
        if table.hasGeometry { columns.append("t.\(GeoPackageSchema.geometryColumn.quotedDatabaseIdentifier)") }
        return columns.joined(separator: ", ")
    }

    static func feature(_ row: Row, table: GeodatabaseFeatureTable) throws -> LocalFeature {
        var feature = LocalFeature()
        for (index, field) in table.fields.enumerated() {
            let value: DatabaseValue = row[index]
            // A date column holding other text keeps the text (a tool wrote it).
            feature.attributes[field.name] =
                GeoPackageValue.json(value, isDate: field.type == .date)
                ?? String.fromDatabaseValue(value).map { .string($0) } ?? .null
        }
        if table.hasGeometry, let blob = row[table.fields.count] as Data?, !blob.isEmpty {
            feature.geometry = Geometry(ogc: try GeoPackageBinary.decode([UInt8](blob)).geometry, layerType: table.geometryType)
        }
        return feature
    }

    /// The columns to write for `feature`: known, editable fields (dates as GeoPackage text),
    /// each checked against its domain in the feature's subtype (the one it names, else
    /// `storedSubtype`), and the geometry as a GeoPackage blob.
    static func columnValues(
        _ feature: LocalFeature, table: GeodatabaseFeatureTable, srsId: Int32, includeGlobalId: Bool, storedSubtype: Int64? = nil
    ) throws -> [String: DatabaseValue] {
        let subtype: LayerSubtypes.Subtype?
        do { subtype = try table.subtypes?.subtype(of: feature.attributes, stored: storedSubtype, layer: table.name) } catch {
            throw ClientError.geodatabase("\(table.name): \(error.description)")
        }
        var values: [String: DatabaseValue] = [:]
        for (key, value) in feature.attributes {
            guard let field = table.field(named: key) else { throw ClientError.geodatabase("\(table.name) has no field \(key)") }
            switch field.type {
            case .oid: continue
            case .globalID:
                if includeGlobalId, let text = value.stringValue {
                    guard let id = GlobalID.normalize(text) else { throw ClientError.geodatabase("'\(text)' is not a GlobalID") }
                    values[field.name] = id.databaseValue
                }
                continue
            default:
                break
            }
            do {
                let domain = if let subtype { subtype.domain(of: field) } else { field.fieldDomain }
                var stored = try FieldValue.coerce(value, for: field, domain: domain).databaseValue
                if field.type == .date, case .int64(let ms) = stored.storage {
                    stored = GeoPackageDate.text(fromEpochMilliseconds: ms).databaseValue
                }
                values[field.name] = stored
            } catch {
                throw ClientError.geodatabase("\(table.name).\(field.name): \(error.description)")
            }
        }
        if table.hasGeometry, let geometry = feature.geometry {
            guard geometry.fits(table.geometryType!) else {
                throw ClientError.geodatabase("a \(geometry.geometryType.shortName) does not fit \(table.name)")
            }
            values[GeoPackageSchema.geometryColumn] = Data(GeoPackageBinary.encode(geometry.ogc, srsID: srsId)).databaseValue
        }
        return values
    }

    /// Columns for the where compiler: dates are GeoPackage text here, compared as epoch ms.
    static func resolver(for table: GeodatabaseFeatureTable) -> WhereCompiler.Resolver {
        let columns = Dictionary(
            uniqueKeysWithValues: table.fields.map { field -> (String, WhereColumn) in
                let column = "t.\(field.name.quotedDatabaseIdentifier)"
                let sql = field.type == .date ? "CAST(round((julianday(\(column)) - 2440587.5) * 86400000) AS INTEGER)" : column
                return (field.name.lowercased(), WhereColumn(sql: sql, type: field.type))
            })
        return { name in columns[name.lowercased()] }
    }
}
