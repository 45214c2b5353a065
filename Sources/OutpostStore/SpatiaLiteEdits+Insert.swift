import Foundation
import GRDB
import OutpostGeometry
import OutpostSQLite
import OutpostStorage
import OutpostSync
import OutpostWire

extension SpatiaLiteEdits {
    /// Inserts rows into a layer and returns their OBJECTIDs. GlobalIDs are kept when given
    /// (any spelling, stored canonical) and assigned otherwise; OBJECTIDs are always assigned.
    ///
    /// Into an empty spatial layer the rows go in bulk: the layer's triggers and secondary
    /// indexes are set aside for the load, the R*Tree is packed with `RTreeBulkLoader`, and
    /// the triggers and indexes are rebuilt, all in one transaction, so a failure (such as a
    /// duplicate GlobalID, caught when the unique index is rebuilt) leaves the layer as it was.
    @discardableResult
    public func insert(_ rows: [FeatureRow], service: String, layer layerId: Int) throws -> [Int64] {
        let layer = try self.layer(service: service, id: layerId)
        let now = clock.milliseconds()
        return try pool.write { db in
            let generation = try SpatiaLiteEdits.allocateGeneration(db, replicaId: nil, at: now)
            try db.execute(
                sql: "UPDATE outpost_layers SET last_edit_date = ? WHERE service = ? AND layer_id = ?",
                arguments: [now, layer.serviceName, layer.definition.id])
            let isEmpty = try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM \(layer.tableName.quotedDatabaseIdentifier))") ?? false
            if isEmpty && layer.isSpatial && rows.count > 64 {
                return try Self.bulkInsert(rows, into: layer, generation: generation, db: db)
            }
            return try Self.insertRows(rows, into: layer, generation: generation, db: db).ids
        }
    }

    /// Inserts through the ordinary statement path (triggers keep the spatial index).
    static func insertRows(
        _ rows: [FeatureRow], into layer: StoredLayer, generation: Int64, db: Database
    ) throws -> (ids: [Int64], envelopes: [Envelope?]) {
        let definition = layer.definition
        let fields = definition.fields.filter { $0.type != .oid }
        var columns = fields.map(\.name.quotedDatabaseIdentifier)
        columns.append(contentsOf: ["outpost_created_gen", "outpost_gen"])
        let generationPosition = columns.count - 2
        if layer.isSpatial { columns.append(StoredLayer.geometryColumn.quotedDatabaseIdentifier) }
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let statement = try db.makeStatement(
            sql: "INSERT INTO \(layer.tableName.quotedDatabaseIdentifier) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))")
        let binder = RawStatementBinder(statement: statement)
        var ids: [Int64] = []
        var envelopes: [Envelope?] = []
        ids.reserveCapacity(rows.count)
        envelopes.reserveCapacity(rows.count)
        // One system-random seed per batch: SplitMix64 outputs never repeat within a batch, so
        // GlobalIDs stay unique without a getrandom call per id.
        var system = SystemRandomNumberGenerator()
        var generator = SeededGenerator(seed: system.next())
        let globalIDPosition = fields.firstIndex { $0.type == .globalID }
        let objectIdKey = definition.objectIdField.lowercased()
        let positionByLoweredName = Dictionary(uniqueKeysWithValues: fields.enumerated().map { ($1.name.lowercased(), $0) })
        // Attribute keys repeat across rows: resolve each spelling once.
        var positionByKey: [String: Int] = [:]
        var values = [DatabaseValue](repeating: .null, count: columns.count)
        for (index, row) in rows.enumerated() {
            for i in 0..<values.count { values[i] = .null }
            values[generationPosition] = generation.databaseValue
            values[generationPosition + 1] = generation.databaseValue
            var globalID: String?
            for (key, value) in row.attributes {
                let position: Int
                if let cached = positionByKey[key] {
                    position = cached
                } else {
                    let lowered = key.lowercased()
                    if lowered == objectIdKey {
                        positionByKey[key] = -1
                        continue
                    }
                    guard let found = positionByLoweredName[lowered] else {
                        throw StoreError.invalidFeature("row \(index): unknown field '\(key)'")
                    }
                    positionByKey[key] = found
                    position = found
                }
                if position < 0 { continue }
                if position == globalIDPosition {
                    if case .null = value { continue }
                    guard let text = value.stringValue, let normalized = GlobalID.normalize(text) else {
                        throw StoreError.invalidFeature("row \(index): '\(value.jsonText)' is not a GlobalID")
                    }
                    globalID = normalized
                    continue
                }
                do {
                    values[position] = try FieldValue.coerce(value, for: fields[position], mode: .lenient).databaseValue
                } catch {
                    throw StoreError.invalidFeature("row \(index): \(error.description)")
                }
            }
            if let globalIDPosition {
                values[globalIDPosition] = (globalID ?? GlobalID.make(using: &generator)).databaseValue
            }
            var envelope: Envelope?
            if layer.isSpatial {
                if let geometry = row.geometry {
                    let stored = try SchemaRules.storable(geometry, for: definition, row: index)
                    envelope = stored.envelope
                    values[columns.count - 1] = Data(SpatiaLiteBlob.encode(stored, srid: Int32(layer.srid))).databaseValue
                }
            }
            try binder.execute(values, db: db)
            ids.append(db.lastInsertedRowID)
            envelopes.append(envelope)
        }
        return (ids, envelopes)
    }

    static func bulkInsert(_ rows: [FeatureRow], into layer: StoredLayer, generation: Int64, db: Database) throws -> [Int64] {
        // Triggers and secondary indexes (the unique GlobalID index) are set aside and rebuilt
        // once: one sort beats a million random B-tree inserts of random GUIDs.
        let setAside = try Row.fetchAll(
            db,
            sql: """
                SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'index') AND tbl_name = ? AND sql IS NOT NULL
                """, arguments: [layer.tableName])
        for object in setAside {
            let kind = (object["type"] as String) == "trigger" ? "TRIGGER" : "INDEX"
            try db.execute(sql: "DROP \(kind) \((object["name"] as String).quotedDatabaseIdentifier)")
        }
        let (ids, envelopes) = try insertRows(rows, into: layer, generation: generation, db: db)
        var entries: [RTreeBulkLoader.Entry] = []
        entries.reserveCapacity(ids.count)
        for (id, envelope) in zip(ids, envelopes) {
            if let envelope, !envelope.isEmpty { entries.append(RTreeBulkLoader.Entry(id: id, envelope: envelope)) }
        }
        try RTreeBulkLoader.load(entries, into: layer.spatialIndexTable, db: db)
        for object in setAside { try db.execute(sql: object["sql"]) }
        return ids
    }
}
