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
    /// In bulk into an empty spatial layer, as `load` does.
    @discardableResult
    public func insert(_ rows: [FeatureRow], service: String, layer layerId: Int) throws -> [Int64] {
        try load(service: service, layer: layerId, expectedCount: rows.count, collectingIds: true) { emit in
            for row in rows { try emit(row) }
        }.ids
    }

    /// Loads the rows `produce` hands over, each written as it comes, so memory stays flat
    /// in their number. One transaction, one generation.
    ///
    /// Into an empty spatial layer of more than 64 rows (`expectedCount`) the rows go in
    /// bulk: the layer's triggers and secondary indexes are set aside for the load and
    /// rebuilt once after it while the R*Tree is packed on another core (`RTreeEntries`),
    /// all in the one transaction, so a failure (such as a duplicate GlobalID, caught when
    /// the unique index is rebuilt) leaves the layer as it was.
    @discardableResult
    public func load(
        service: String, layer layerId: Int, expectedCount: Int, _ produce: (_ emit: (FeatureRow) throws -> Void) throws -> Void
    ) throws -> Int {
        try load(service: service, layer: layerId, expectedCount: expectedCount, collectingIds: false, produce).count
    }

    private func load(
        service: String, layer layerId: Int, expectedCount: Int, collectingIds: Bool,
        _ produce: (_ emit: (FeatureRow) throws -> Void) throws -> Void
    ) throws -> (count: Int, ids: [Int64]) {
        let layer = try self.layer(service: service, id: layerId)
        let now = clock.milliseconds()
        let scratchDirectory = temporaryDirectory
        var ids: [Int64] = []
        if collectingIds { ids.reserveCapacity(expectedCount) }
        let count = try pool.write { db in
            let generation = try SpatiaLiteEdits.allocateGeneration(db, replicaId: nil, at: now)
            try db.execute(
                sql: "UPDATE outpost_layers SET last_edit_date = ? WHERE service = ? AND layer_id = ?",
                arguments: [now, layer.serviceName, layer.definition.id])
            let isEmpty = try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM \(layer.tableName.quotedDatabaseIdentifier))") ?? false
            guard isEmpty && layer.isSpatial && expectedCount > 64 else {
                var inserter = try RowInserter(layer: layer, generation: generation, db: db)
                try produce { row in
                    let id = try inserter.insert(row).id
                    if collectingIds { ids.append(id) }
                }
                return inserter.count
            }
            // Triggers and secondary indexes (the unique GlobalID index) are set aside and
            // rebuilt once: one sort beats a million random B-tree inserts of random GUIDs.
            let setAside = try Row.fetchAll(
                db,
                sql: """
                    SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'index') AND tbl_name = ? AND sql IS NOT NULL
                    """, arguments: [layer.tableName])
            for object in setAside {
                let kind = (object["type"] as String) == "trigger" ? "TRIGGER" : "INDEX"
                try db.execute(sql: "DROP \(kind) \((object["name"] as String).quotedDatabaseIdentifier)")
            }
            var inserter = try RowInserter(layer: layer, generation: generation, db: db)
            var entries = RTreeEntries(scratchDirectory: scratchDirectory)
            try produce { row in
                let (id, envelope) = try inserter.insert(row)
                if collectingIds { ids.append(id) }
                if let envelope { try entries.append(id: id, envelope: envelope) }
            }
            let packing = entries.pack(nodeSize: try RTreeBulkLoader.nodeSize(of: layer.spatialIndexTable, db: db))
            // The store keeps temporary files in memory (statement journals are small), but so
            // would SQLite's sorter keep its runs: an index over 5M rows took 480 MB more. The
            // indexes are sorted through files, which was also faster (4.9 s against 8.0 s).
            try db.execute(sql: "PRAGMA temp_store = FILE")
            defer { try? db.execute(sql: "PRAGMA temp_store = MEMORY") }
            for object in setAside { try db.execute(sql: object["sql"]) }
            try packing.write(into: layer.spatialIndexTable, db: db)
            return inserter.count
        }
        return (count, ids)
    }
}

/// Inserts rows one by one through the ordinary statement (the layer's triggers, when in
/// place, keep its spatial index).
struct RowInserter {
    private let layer: StoredLayer
    private var reader: BulkLoadRows
    private let binder: RawStatementBinder
    private let db: Database
    private var values: [DatabaseValue]
    private(set) var count = 0

    init(layer: StoredLayer, generation: Int64, db: Database) throws {
        self.layer = layer
        self.db = db
        reader = BulkLoadRows(layer.definition)
        var columns = reader.fields.map(\.name.quotedDatabaseIdentifier)
        columns.append(contentsOf: ["outpost_created_gen", "outpost_gen"])
        if layer.isSpatial { columns.append(StoredLayer.geometryColumn.quotedDatabaseIdentifier) }
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        binder = RawStatementBinder(
            statement: try db.makeStatement(
                sql: "INSERT INTO \(layer.tableName.quotedDatabaseIdentifier) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"))
        values = [DatabaseValue](repeating: .null, count: columns.count)
        values[reader.fields.count] = generation.databaseValue
        values[reader.fields.count + 1] = generation.databaseValue
    }

    /// Writes `row`, returning its OBJECTID and its geometry's envelope.
    mutating func insert(_ row: FeatureRow) throws -> (id: Int64, envelope: Envelope?) {
        let read = try reader.read(row, index: count)
        for (position, value) in read.values.enumerated() { values[position] = value.databaseValue }
        if layer.isSpatial {
            values[values.count - 1] = read.geometry.map { Data(SpatiaLiteBlob.encode($0, srid: Int32(layer.srid))).databaseValue } ?? .null
        }
        try binder.execute(values, db: db)
        count += 1
        return (db.lastInsertedRowID, read.geometry?.envelope)
    }
}
