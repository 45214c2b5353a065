import Foundation
import GRDB
import OutpostStorage
import OutpostWire

extension SpatiaLiteBackend {
    /// `<table>__version_rows`: the layer's columns plus the version and a deleted flag.
    static func createVersionRows(forTable table: String, db: Database) throws {
        let rows = "\(table)__version_rows"
        guard try !db.tableExists(rows) else { return }
        let globalIdField =
            try String.fetchOne(db, sql: "SELECT global_id_field FROM outpost_layers WHERE table_name = ?", arguments: [table]) ?? "GlobalID"
        try db.execute(sql: "CREATE TABLE \(rows.quotedDatabaseIdentifier) AS SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE 0")
        try db.execute(sql: "ALTER TABLE \(rows.quotedDatabaseIdentifier) ADD COLUMN outpost_version TEXT NOT NULL DEFAULT ''")
        try db.execute(sql: "ALTER TABLE \(rows.quotedDatabaseIdentifier) ADD COLUMN outpost_deleted INTEGER NOT NULL DEFAULT 0")
        try db.execute(
            sql: """
                CREATE UNIQUE INDEX \("\(rows)_version".quotedDatabaseIdentifier) ON \(rows.quotedDatabaseIdentifier)(outpost_version, \(globalIdField.quotedDatabaseIdentifier))
                """)
    }

    /// The version every versioned service has; replicas' versions branch from it.
    public static let defaultVersionName = DataVersion.defaultName

    /// `<table>__history`: the layer's columns plus `outpost_valid_to`, indexed by OBJECTID.
    static func createHistory(forTable table: String, layer: LayerDefinition?, db: Database) throws {
        let history = "\(table)__history"
        guard try !db.tableExists(history) else { return }
        try db.execute(sql: "CREATE TABLE \(history.quotedDatabaseIdentifier) AS SELECT * FROM \(table.quotedDatabaseIdentifier) WHERE 0")
        try db.execute(sql: "ALTER TABLE \(history.quotedDatabaseIdentifier) ADD COLUMN outpost_valid_to INTEGER NOT NULL DEFAULT 0")
        let objectIdField =
            try layer?.objectIdField
            ?? String.fetchOne(db, sql: "SELECT object_id_field FROM outpost_layers WHERE table_name = ?", arguments: [table]) ?? "OBJECTID"
        try db.execute(
            sql: """
                CREATE INDEX \("\(history)_objectid".quotedDatabaseIdentifier) ON \(history.quotedDatabaseIdentifier)(\(objectIdField.quotedDatabaseIdentifier), outpost_gen)
                """)
    }

    static func createDefaultVersion(service: String, db: Database, now: Int64) throws {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO outpost_versions(service, name, parent, replica_id, description, created_at)
                VALUES (?, ?, NULL, NULL, 'The published state of the data', ?)
                """, arguments: [service, defaultVersionName, now])
        if try db.columns(in: "outpost_versions").contains(where: { $0.name == "guid" }) {
            try db.execute(
                sql: "UPDATE outpost_versions SET guid = ? WHERE service = ? AND name = ? AND guid IS NULL",
                arguments: [GlobalID.make(), service, defaultVersionName])
        }
    }

    /// The version a replica of a versioned service syncs through (`<owner>.<replica name>_<id>`).
    static func createReplicaVersion(service: String, replicaId: String, replicaName: String, db: Database, now: Int64) throws {
        let hex = replicaId.filter(\.isHexDigit).prefix(8).lowercased()
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO outpost_versions(service, name, parent, replica_id, access, description, created_at)
                VALUES (?, ?, ?, ?, 'private', ?, ?)
                """,
            arguments: [
                service, "outpost.\(replicaName)_\(hex)", defaultVersionName, replicaId,
                "Version of replica \(replicaId)", now,
            ])
        if try db.columns(in: "outpost_versions").contains(where: { $0.name == "guid" }) {
            try db.execute(
                sql:
                    "UPDATE outpost_versions SET guid = ?, base_generation = (SELECT coalesce(max(generation), 0) FROM outpost_generations) WHERE replica_id = ? AND guid IS NULL",
                arguments: [GlobalID.make(), replicaId])
        }
    }
}

extension SpatiaLiteBackend {
    /// The change-tracking columns every layer and attachment table carries (not fields:
    /// never served as attributes). `outpost_created_gen` tells adds from updates for a
    /// replica at a given generation.
    static let changeTrackingColumns = [
        "outpost_created_gen INTEGER NOT NULL DEFAULT 0",
        "outpost_gen INTEGER NOT NULL DEFAULT 0",
        "outpost_replica TEXT",
    ]

    /// Adds the columns a table lacks (column definitions such as `"name TYPE ..."`).
    static func ensureColumns(_ definitions: [String], table: String, db: Database) throws {
        let existing = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]))
        for column in definitions where !existing.contains(String(column.prefix { $0 != " " })) {
            try db.execute(sql: "ALTER TABLE \(table.quotedDatabaseIdentifier) ADD COLUMN \(column)")
        }
    }

    static func addChangeTracking(toTable table: String, db: Database) throws {
        try ensureColumns(changeTrackingColumns, table: table, db: db)
        try db.execute(sql: "DROP INDEX IF EXISTS \("\(table)_outpost_gen".quotedDatabaseIdentifier)")
        try db.execute(
            sql: """
                CREATE INDEX IF NOT EXISTS \("\(table)_outpost_changes".quotedDatabaseIdentifier)
                ON \(table.quotedDatabaseIdentifier)(outpost_gen, outpost_replica, outpost_created_gen)
                """)
    }
}

extension SpatiaLiteBackend {
    /// Replaces SpatiaLite's per-row triggers on a layer with lean ones that keep the same
    /// R*Tree (`idx_<table>_shape`) in step.
    ///
    /// SpatiaLite's triggers check geometry constraints (Outpost validates geometry before
    /// writing), stamp `geometry_columns_time`, and update the index through a function that
    /// prepares SQL on every call: together more than half the cost of an insert. The index
    /// stays registered with SpatiaLite (`spatial_index_enabled = 1`), so SpatiaLite tools
    /// still see and use it.
    static func installLeanSpatialTriggers(table: String, db: Database) throws {
        let column = StoredLayer.geometryColumn
        let index = "idx_\(table)_\(column)".quotedDatabaseIdentifier
        for trigger in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", arguments: [table]) {
            try db.execute(sql: "DROP TRIGGER \(trigger.quotedDatabaseIdentifier)")
        }
        let t = table.quotedDatabaseIdentifier
        let g = column.quotedDatabaseIdentifier
        let bounds = "MbrMinX(NEW.\(g)), MbrMaxX(NEW.\(g)), MbrMinY(NEW.\(g)), MbrMaxY(NEW.\(g))"
        try db.execute(
            sql: """
                CREATE TRIGGER \("gii_\(table)_\(column)".quotedDatabaseIdentifier) AFTER INSERT ON \(t)
                FOR EACH ROW WHEN NEW.\(g) IS NOT NULL BEGIN
                    INSERT INTO \(index)(pkid, xmin, xmax, ymin, ymax) VALUES (NEW.ROWID, \(bounds));
                END;
                CREATE TRIGGER \("giu_\(table)_\(column)".quotedDatabaseIdentifier) AFTER UPDATE OF \(g) ON \(t)
                FOR EACH ROW BEGIN
                    DELETE FROM \(index) WHERE pkid = OLD.ROWID;
                    INSERT INTO \(index)(pkid, xmin, xmax, ymin, ymax) SELECT NEW.ROWID, \(bounds) WHERE NEW.\(g) IS NOT NULL;
                END;
                CREATE TRIGGER \("gid_\(table)_\(column)".quotedDatabaseIdentifier) AFTER DELETE ON \(t)
                FOR EACH ROW BEGIN
                    DELETE FROM \(index) WHERE pkid = OLD.ROWID;
                END;
                """)
    }
}
