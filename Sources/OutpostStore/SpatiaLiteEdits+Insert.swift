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
        var reader = BulkLoadRows(layer.definition)
        var columns = reader.fields.map(\.name.quotedDatabaseIdentifier)
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
        var values = [DatabaseValue](repeating: .null, count: columns.count)
        values[generationPosition] = generation.databaseValue
        values[generationPosition + 1] = generation.databaseValue
        for (index, row) in rows.enumerated() {
            let read = try reader.read(row, index: index)
            for (position, value) in read.values.enumerated() { values[position] = value.databaseValue }
            if layer.isSpatial {
                values[columns.count - 1] = read.geometry.map { Data(SpatiaLiteBlob.encode($0, srid: Int32(layer.srid))).databaseValue } ?? .null
            }
            try binder.execute(values, db: db)
            ids.append(db.lastInsertedRowID)
            envelopes.append(read.geometry?.envelope)
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
