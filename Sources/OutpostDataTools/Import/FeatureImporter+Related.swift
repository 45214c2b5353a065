import Foundation
import GRDB
import OutpostStorage
import OutpostWire

/// A table of a source whose rows are another table's attachments: a File Geodatabase's
/// `__ATTACH` table (its attachment relationship class), or one named `<table>__ATTACH` with the
/// same columns in a GeoPackage (ArcGIS writes them so).
struct AttachmentTable {
    var table: String
    var parent: String
    /// The column holding the parent's GlobalID (`REL_GLOBALID`).
    var foreignKey: String

    /// The attachment tables among `tables`: named by `catalog`'s attachment relationships, or
    /// by the `__ATTACH` naming with `REL_GLOBALID` and `DATA` columns. A catalog class keyed by
    /// anything but the GlobalID is not one (`warn` hears of it; the table is imported as a
    /// table); whether the parent's GlobalIDs are kept is the import's to decide.
    static func find(in tables: [SourceTable], catalog: GeodatabaseCatalog, warn: (String) -> Void) -> [AttachmentTable] {
        var found: [AttachmentTable] = []
        for table in tables {
            let columns = Set(table.columns.map { $0.name.lowercased() })
            var candidate: AttachmentTable?
            if let relationship = catalog.attachmentRelationship(destination: table.name) {
                guard relationship.originPrimaryKey.lowercased() == "globalid" else {
                    warn("\(table.name): attachments keyed by \(relationship.originPrimaryKey), not the GlobalID, are imported as a table")
                    continue
                }
                candidate = AttachmentTable(table: table.name, parent: relationship.origin, foreignKey: relationship.originForeignKey)
            } else if table.name.lowercased().hasSuffix("__attach"), columns.contains("rel_globalid") {
                candidate = AttachmentTable(table: table.name, parent: String(table.name.dropLast("__ATTACH".count)), foreignKey: "REL_GLOBALID")
            }
            guard var attachments = candidate, columns.contains("data") else { continue }
            guard let parent = tables.first(where: { $0.name.lowercased() == attachments.parent.lowercased() }) else { continue }
            attachments.parent = parent.name
            found.append(attachments)
        }
        return found
    }
}

extension FeatureImporter {
    /// The column of `table` that holds GlobalIDs to keep: one named GlobalID whose every value
    /// is a GUID (a File Geodatabase's `esriFieldTypeGlobalID`, as GDAL copies it). Keeping them
    /// keeps the keys of relationships and attachments; any other column is an ordinary field.
    static func globalIdColumn(of table: SourceTable, db: Database) throws -> String? {
        guard let column = table.columns.first(where: { $0.name.lowercased() == "globalid" && !$0.isPrimaryKey })?.name else { return nil }
        let quoted = column.quotedDatabaseIdentifier
        let from = table.name.quotedDatabaseIdentifier
        // Duplicates counted by SQLite (its sorter spills to disk), so memory stays flat.
        guard try Int.fetchOne(db, sql: "SELECT count(\(quoted)) - count(DISTINCT upper(\(quoted))) FROM \(from)") == 0 else { return nil }
        let cursor = try String.fetchCursor(db, sql: "SELECT \(quoted) FROM \(from) WHERE \(quoted) IS NOT NULL")
        while let text = try cursor.next() {
            guard GlobalID.normalize(text) != nil else { return nil }
        }
        return column
    }

    /// The relationship classes of `catalog` between imported layers, written on both layers:
    /// the origin names its key, the destination the field that holds it. Attachment classes are
    /// attachments; attributed and many-to-many classes, and keys that are not fields of their
    /// layers, are left out with a word to `warn` (docs/import.md, "What is not kept").
    static func relate(
        _ layers: inout [LayerDefinition], sources: [String], fieldNames: [[String: String]], catalog: GeodatabaseCatalog,
        warn: (String) -> Void
    ) {
        var nextId = 0
        func index(of name: String) -> Int? { sources.firstIndex { $0.lowercased() == name.lowercased() } }
        for relationship in catalog.relationships where !relationship.isAttachment {
            guard let origin = index(of: relationship.origin), let destination = index(of: relationship.destination) else { continue }
            if relationship.isAttributed {
                warn("\(relationship.name): a \(relationship.cardinality == .manyToMany ? "many-to-many" : "attributed") relationship is not kept")
                continue
            }
            guard let originKey = key(relationship.originPrimaryKey, of: layers[origin], fieldNames: fieldNames[origin]),
                let destinationKey = key(relationship.originForeignKey, of: layers[destination], fieldNames: fieldNames[destination])
            else {
                warn("\(relationship.name): its keys are not fields of \(relationship.origin) and \(relationship.destination); not kept")
                continue
            }
            if originKey == layers[origin].objectIdField {
                // OBJECTIDs are numbered anew on import: keys that name them would point elsewhere.
                warn("\(relationship.name): keyed by the OBJECTID, which an import numbers anew; not kept")
                continue
            }
            let label = { (text: String) in text.isEmpty ? relationship.name : text }
            layers[origin].relationships.append(
                RelationshipDefinition(
                    id: nextId, name: label(relationship.forwardLabel), relatedTableId: layers[destination].id,
                    cardinality: relationship.cardinality, role: .origin, keyField: originKey, composite: relationship.isComposite))
            layers[destination].relationships.append(
                RelationshipDefinition(
                    id: nextId, name: label(relationship.backwardLabel), relatedTableId: layers[origin].id,
                    cardinality: relationship.cardinality, role: .destination, keyField: destinationKey, composite: relationship.isComposite))
            nextId += 1
        }
    }

    /// The imported name of source column `column`: the layer's GlobalID or OBJECTID field, or
    /// the field it was mapped to.
    private static func key(_ column: String, of layer: LayerDefinition, fieldNames: [String: String]) -> String? {
        if let mapped = fieldNames[column.lowercased()] { return mapped }
        if column.lowercased() == layer.globalIdField.lowercased() { return layer.globalIdField }
        if column.lowercased() == layer.objectIdField.lowercased() { return layer.objectIdField }
        return nil
    }

    /// Loads the rows of an attachment table as attachments of its parent layer's features, by
    /// their parents' GlobalIDs, in applyEdits batches of at most 256 or 32 MB. Rows whose parent
    /// is not there are counted to `warn`, not loaded.
    func loadAttachments(
        _ attachments: AttachmentTable, service: String, layer: Int, source: DatabaseQueue, warn: (String) -> Void
    ) throws {
        let columns = try source.read { db in try db.columns(in: attachments.table).map(\.name) }
        func column(_ name: String) -> String? { columns.first { $0.lowercased() == name.lowercased() } }
        let selected = [attachments.foreignKey, column("ATT_NAME"), column("CONTENT_TYPE"), column("DATA"), column("GlobalID")].map {
            $0?.quotedDatabaseIdentifier ?? "NULL"
        }
        var batch: [AttachmentEdit] = []
        var bytes = 0
        var orphans = 0
        func flush() throws {
            guard !batch.isEmpty else { return }
            let outcome = try store.edits.applyEdits(
                service: service, edits: [LayerEdits(layerId: layer, attachments: AttachmentEdits(adds: batch))],
                options: EditOptions(rollbackOnFailure: false, useGlobalIds: true))
            orphans += outcome.layers.flatMap { $0.attachmentResults?.adds ?? [] }.filter { !$0.success }.count
            (batch, bytes) = ([], 0)
        }
        try source.read { db in
            let cursor = try Row.fetchCursor(db, sql: "SELECT \(selected.joined(separator: ", ")) FROM \(attachments.table.quotedDatabaseIdentifier)")
            while let row = try cursor.next() {
                guard let parent = (row[0] as String?).flatMap(GlobalID.normalize), let data = row[3] as Data? else {
                    orphans += 1
                    continue
                }
                let globalId = (row[4] as String?).flatMap(GlobalID.normalize) ?? GlobalID.make()
                batch.append(
                    AttachmentEdit(
                        globalId: globalId, parentGlobalId: parent, name: (row[1] as String?) ?? "attachment",
                        contentType: (row[2] as String?) ?? "application/octet-stream", source: .data([UInt8](data))))
                bytes += data.count
                if batch.count == 256 || bytes >= 32 << 20 { try flush() }
            }
        }
        try flush()
        if orphans > 0 { warn("\(attachments.table): \(orphans) attachments without a parent feature were not imported") }
    }
}
