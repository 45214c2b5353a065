import Foundation
import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire

/// Services and layers: the catalog and its DDL (`CatalogStore`).
public struct SpatiaLiteSchema: CatalogStore, StoreRepository {
    public let database: StoreDatabase

    public func service(named name: String) throws(StoreError) -> StoredService { try catalog().existingService(named: name) }

    public func layer(service name: String, id: Int) throws(StoreError) -> StoredLayer { try catalog().existingLayer(service: name, id: id) }
}

extension SpatiaLiteSchema {
    /// Creates a service with its layers: catalog rows, one table per layer with typed
    /// columns, a unique GlobalID index, the geometry column with its spatial index, and an
    /// attachment table where the layer has attachments. All or nothing.
    @discardableResult
    public func createService(_ service: ServiceDefinition) throws -> StoredService {
        try SchemaRules.checkCreatable(service)
        try pool.write { db in
            // Names are matched case-insensitively, so "Water" and "water" would be one service.
            if let existing = try String.fetchOne(
                db, sql: "SELECT name FROM outpost_services WHERE name = ? COLLATE NOCASE", arguments: [service.name])
            {
                throw StoreError.serviceExists(existing)
            }
            // Locators and networks share the directory (docs/routing.md, "Networks"): not their
            // name, nor a folder of theirs, nor a folder named as one of them.
            let folder = service.name.contains("/") ? String(service.name.split(separator: "/")[0]) : ""
            if let taken = try String.fetchOne(
                db,
                sql: """
                    SELECT name FROM (SELECT name FROM outpost_locators UNION ALL SELECT name FROM outpost_networks)
                    WHERE name = ?1 COLLATE NOCASE OR name = ?2 COLLATE NOCASE
                       OR (instr(name, '/') > 0 AND substr(name, 1, instr(name, '/') - 1) = ?1 COLLATE NOCASE)
                    """, arguments: [service.name, folder])
            {
                throw StoreError.serviceExists(taken)
            }
            let now = clock.milliseconds()
            try db.execute(
                sql: """
                    INSERT INTO outpost_services(name, description, is_versioned, capabilities, wkid, max_record_count, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    service.name, service.description, service.isVersioned,
                    service.capabilities.joined(separator: ","), service.spatialReference.wkid,
                    service.maxRecordCount, now,
                ])
            let prefix = try Self.freeTablePrefix(service: service, db: db)
            for layer in service.layers {
                let table = "\(prefix)_\(layer.id)"
                try Self.createLayer(layer, service: service.name, table: table, db: db, now: now)
                if service.isVersioned {
                    try SpatiaLiteBackend.createHistory(forTable: table, layer: layer, db: db)
                    try SpatiaLiteBackend.createVersionRows(forTable: table, db: db)
                }
            }
            if service.isVersioned { try SpatiaLiteBackend.createDefaultVersion(service: service.name, db: db, now: now) }
        }
        try reloadCatalog()
        return try self.service(named: service.name)
    }

    /// Removes a service with everything kept for it: its tables, catalog rows, change
    /// tracking, conflict log, uploads and versions, then its attachment and upload files.
    /// Refused while replicas are registered with it or its jobs run (`StoreError.serviceInUse`).
    public func deleteService(named name: String, refusingWhileInUse: Bool) throws {
        let stored = try service(named: name)
        let name = stored.definition.name
        let (attachments, uploads) = try pool.write { db -> ([String], [String]) in
            // Deleted meanwhile by another request: this one finds nothing to delete.
            guard try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM outpost_services WHERE name = ?", arguments: [name]) == true else {
                throw StoreError.serviceNotFound(name)
            }
            let replicas = try Int.fetchOne(db, sql: "SELECT count(*) FROM outpost_replicas WHERE service = ?", arguments: [name]) ?? 0
            let jobs =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) FROM outpost_jobs WHERE service = ? AND kind IN \(Self.sqlList(JobKind.featureServiceKinds))
                            AND status NOT IN ('Completed', 'CompletedWithErrors', 'Failed')
                        """, arguments: [name]) ?? 0
            guard !refusingWhileInUse || (replicas == 0 && jobs == 0) else {
                throw StoreError.serviceInUse(service: name, replicas: replicas, jobs: jobs)
            }
            var attachments: [String] = []
            for layer in stored.layers {
                if layer.definition.hasAttachments {
                    attachments += try String.fetchAll(
                        db, sql: "SELECT DATA_PATH FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE DATA_PATH IS NOT NULL")
                }
                if layer.isSpatial {
                    _ = try? Int.fetchOne(db, sql: "SELECT DisableSpatialIndex(?, ?)", arguments: [layer.tableName, StoredLayer.geometryColumn])
                    try db.execute(sql: "DROP TABLE IF EXISTS \(layer.spatialIndexTable.quotedDatabaseIdentifier)")
                    _ = try? Int.fetchOne(db, sql: "SELECT DiscardGeometryColumn(?, ?)", arguments: [layer.tableName, StoredLayer.geometryColumn])
                }
                try db.execute(sql: "DROP TABLE IF EXISTS \(layer.attachmentTable.quotedDatabaseIdentifier)")
                try db.execute(sql: "DROP TABLE IF EXISTS \(layer.historyTable.quotedDatabaseIdentifier)")
                try db.execute(sql: "DROP TABLE IF EXISTS \(layer.versionTable.quotedDatabaseIdentifier)")
                try db.execute(sql: "DROP TABLE IF EXISTS \(layer.tableName.quotedDatabaseIdentifier)")
            }
            let uploads = try String.fetchAll(db, sql: "SELECT item_id FROM outpost_uploads WHERE service = ?", arguments: [name])
            for statement in Self.serviceRowDeletions { try db.execute(sql: statement, arguments: [name]) }
            return (attachments, uploads)
        }
        try reloadCatalog()
        // After the commit: an attachment file whose removal fails is an orphan the start-up
        // sweep takes; an upload's stays.
        AttachmentFiles(directory: directory, temporaryDirectory: database.temporaryDirectory).remove(attachments)
        let folder = UploadFolder(blobs: .folder(directory), temporaryDirectory: database.temporaryDirectory)
        for upload in uploads { folder.remove(upload) }
    }

    /// `kinds` as an SQL list of literals (the enum's own names, never a user's text).
    static func sqlList(_ kinds: [JobKind]) -> String { "(" + kinds.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")" }

    /// What a deleted service leaves in the shared tables, each statement taking its name.
    static let serviceRowDeletions = [
        "DELETE FROM outpost_sync_receipts WHERE replica_id IN (SELECT replica_id FROM outpost_unregistered_replicas WHERE service = ?)",
        "DELETE FROM outpost_replica_origins WHERE replica_id IN (SELECT replica_id FROM outpost_unregistered_replicas WHERE service = ?)",
        "DELETE FROM outpost_unregistered_replicas WHERE service = ?",
        "DELETE FROM outpost_tombstones WHERE service = ?",
        "DELETE FROM outpost_conflicts WHERE service = ?",
        "DELETE FROM outpost_uploads WHERE service = ?",
        // Its ended replica jobs (`JobKind.replicaKinds`): a service made later with the name never answers them.
        "DELETE FROM outpost_jobs WHERE service = ? AND kind IN \(sqlList(JobKind.replicaKinds))",
        "DELETE FROM outpost_fields WHERE service = ?",
        "DELETE FROM outpost_relationships WHERE service = ?",
        "DELETE FROM outpost_layers WHERE service = ?",
        "DELETE FROM outpost_versions WHERE service = ?",
        "DELETE FROM outpost_services WHERE name = ?",
    ]

    /// The table of a layer of a service created in an empty store (the demo services).
    static func tableName(service: String, layer: Int) -> String { "\(SchemaRules.tablePrefix(service: service))_\(layer)" }

    /// The service's table prefix, numbered when another service's tables already use it
    /// (`a-b` and `a_b`, or `a/b` and `a__b`, map to the same prefix). Table names are kept in
    /// the catalog, so the number never has to be derived again.
    static func freeTablePrefix(service: ServiceDefinition, db: Database) throws -> String {
        let base = SchemaRules.tablePrefix(service: service.name)
        var candidate = base
        var number = 1
        // The layer table and the tables named after it (attachments, history, version rows, R*Tree).
        func isTaken(_ table: String) throws -> Bool {
            let names = [table, "\(table)__attach", "\(table)__history", "\(table)__version_rows", "idx_\(table)_\(StoredLayer.geometryColumn)"]
            return try Bool.fetchOne(
                db, sql: "SELECT count(*) > 0 FROM sqlite_master WHERE lower(name) IN (?, ?, ?, ?, ?)",
                arguments: StatementArguments(names.map { $0.lowercased() })) == true
        }
        while try service.layers.contains(where: { try isTaken("\(candidate)_\($0.id)") }) {
            number += 1
            candidate = "\(base)_\(number)"
        }
        return candidate
    }

    static func createLayer(_ layer: LayerDefinition, service: String, table: String, db: Database, now: Int64) throws {
        var columns: [String] = []
        for field in layer.fields {
            let name = field.name.quotedDatabaseIdentifier
            switch field.type {
            case .oid: columns.append("\(name) INTEGER PRIMARY KEY AUTOINCREMENT")
            case .globalID: columns.append("\(name) TEXT NOT NULL")
            default: columns.append("\(name) \(field.type.sqliteType)")
            }
        }
        try db.execute(sql: "CREATE TABLE \(table.quotedDatabaseIdentifier) (\(columns.joined(separator: ", ")))")
        try SpatiaLiteBackend.addChangeTracking(toTable: table, db: db)
        try db.execute(
            sql:
                "CREATE UNIQUE INDEX \("\(table)_globalid".quotedDatabaseIdentifier) ON \(table.quotedDatabaseIdentifier)(\(layer.globalIdField.quotedDatabaseIdentifier))"
        )
        if let geometryType = layer.geometryType {
            let added = try Int.fetchOne(
                db, sql: "SELECT AddGeometryColumn(?, ?, ?, ?, 'XY')",
                arguments: [table, StoredLayer.geometryColumn, layer.spatialReference.epsg, geometryType.ogcColumnType])
            guard added == 1 else {
                throw StoreError.invalidSchema("SpatiaLite refused the geometry column (is EPSG:\(layer.spatialReference.epsg) known?)")
            }
            let indexed = try Int.fetchOne(db, sql: "SELECT CreateSpatialIndex(?, ?)", arguments: [table, StoredLayer.geometryColumn])
            guard indexed == 1 else { throw StoreError.spatialite("CreateSpatialIndex failed for \(table)") }
            try SpatiaLiteBackend.installLeanSpatialTriggers(table: table, db: db)
        }
        if layer.hasAttachments {
            let attach = "\(table)__attach"
            try db.execute(
                sql: """
                    CREATE TABLE \(attach.quotedDatabaseIdentifier) (
                        ATTACHMENTID INTEGER PRIMARY KEY AUTOINCREMENT,
                        GLOBALID TEXT NOT NULL UNIQUE,
                        REL_GLOBALID TEXT NOT NULL,
                        CONTENT_TYPE TEXT NOT NULL,
                        ATT_NAME TEXT NOT NULL,
                        DATA_SIZE INTEGER NOT NULL,
                        KEYWORDS TEXT NOT NULL DEFAULT '',
                        DATA BLOB NOT NULL,
                        DATA_PATH TEXT
                    );
                    CREATE INDEX \("\(attach)_rel".quotedDatabaseIdentifier) ON \(attach.quotedDatabaseIdentifier)(REL_GLOBALID);
                    """)
            try SpatiaLiteBackend.addChangeTracking(toTable: attach, db: db)
        }
        var editFieldsInfo: String?
        if let info = layer.editFieldsInfo {
            let json: JSONValue = [
                "creationDateField": .string(info.creationDateField), "creatorField": .string(info.creatorField),
                "editDateField": .string(info.editDateField), "editorField": .string(info.editorField),
            ]
            editFieldsInfo = json.jsonText
        }
        try db.execute(
            sql: """
                INSERT INTO outpost_layers(service, layer_id, name, kind, description, geometry_type, wkid, object_id_field,
                    global_id_field, display_field, has_attachments, max_record_count, table_name, edit_fields_info, last_edit_date, subtypes)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                service, layer.id, layer.name, layer.kind.rawValue, layer.description, layer.geometryType?.rawValue,
                layer.spatialReference.wkid, layer.objectIdField, layer.globalIdField, layer.displayField,
                layer.hasAttachments, layer.maxRecordCount, table, editFieldsInfo, now, layer.subtypes?.json().jsonText,
            ])
        for (position, field) in layer.fields.enumerated() {
            try db.execute(
                sql: """
                    INSERT INTO outpost_fields(service, layer_id, position, name, type, alias, length, nullable, editable, default_value, domain)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    service, layer.id, position, field.name, field.type.rawValue, field.alias, field.length,
                    field.nullable, field.editable, field.defaultValue.jsonText, field.domain.jsonText,
                ])
        }
        for relationship in layer.relationships {
            try db.execute(
                sql: """
                    INSERT INTO outpost_relationships(service, layer_id, relationship_id, name, related_table_id, cardinality, role, key_field, composite)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    service, layer.id, relationship.id, relationship.name, relationship.relatedTableId,
                    relationship.cardinality.rawValue, relationship.role.rawValue, relationship.keyField, relationship.composite,
                ])
        }
    }
}
