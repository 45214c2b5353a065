import GRDB

/// The triggers of a replica file's layer (`docs/replica-format.md`): the change log that
/// stock SQLite writes on every local insert, update and delete (unless the client is
/// applying the server's changes), GlobalIDs that never change, and the attachment mapping
/// table kept in step. Pure SQL builders; identifiers arrive quoted.
enum ReplicaFileTriggers {
    static let tracking = "(SELECT applying_server_changes FROM outpost_sync_replica) = 0"

    static func featureChangeLog(table: String, layerId: Int, objectId oid: String, globalId gid: String) -> String {
        let t = table.quotedDatabaseIdentifier
        func trigger(_ suffix: String) -> String { "outpost_\(table)_\(suffix)".quotedDatabaseIdentifier }
        return """
            CREATE TRIGGER \(trigger("insert")) AFTER INSERT ON \(t) WHEN \(tracking)
            BEGIN
              UPDATE \(t) SET \(gid) = \(GeoPackageSchema.globalIDExpression) WHERE \(oid) = NEW.\(oid) AND NEW.\(gid) IS NULL;
              INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation)
                SELECT \(layerId), 'feature', \(gid), \(oid), 'insert' FROM \(t) WHERE \(oid) = NEW.\(oid);
            END;
            CREATE TRIGGER \(trigger("update")) AFTER UPDATE ON \(t) WHEN \(tracking) AND OLD.\(gid) IS NOT NULL
            BEGIN
              INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation)
                VALUES (\(layerId), 'feature', NEW.\(gid), NEW.\(oid), 'update');
            END;
            CREATE TRIGGER \(trigger("delete")) AFTER DELETE ON \(t) WHEN \(tracking)
            BEGIN
              INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation)
                VALUES (\(layerId), 'feature', OLD.\(gid), OLD.\(oid), 'delete');
            END;
            CREATE TRIGGER \(trigger("globalid_fixed")) BEFORE UPDATE OF \(gid) ON \(t)
              WHEN OLD.\(gid) IS NOT NULL AND NEW.\(gid) IS NOT OLD.\(gid)
            BEGIN
              SELECT RAISE(ABORT, 'GlobalID values never change');
            END;
            """
    }

    static func attachmentChangeLog(
        table: String, attachmentTable: String, mappingTable: String, layerId: Int,
        objectId oid: String, globalId gid: String
    ) -> String {
        let t = table.quotedDatabaseIdentifier
        let a = attachmentTable.quotedDatabaseIdentifier
        let m = mappingTable.quotedDatabaseIdentifier
        func trigger(_ suffix: String) -> String { "outpost_\(table)_\(suffix)".quotedDatabaseIdentifier }
        func attachmentTrigger(_ suffix: String) -> String { "outpost_\(attachmentTable)_\(suffix)".quotedDatabaseIdentifier }
        return """
            CREATE TRIGGER \(attachmentTrigger("insert")) AFTER INSERT ON \(a) WHEN \(tracking)
            BEGIN
              UPDATE \(a) SET GLOBALID = \(GeoPackageSchema.globalIDExpression) WHERE id = NEW.id AND NEW.GLOBALID IS NULL;
              INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation)
                SELECT \(layerId), 'attachment', GLOBALID, ATTACHMENTID, 'insert' FROM \(a) WHERE id = NEW.id;
            END;
            CREATE TRIGGER \(attachmentTrigger("update")) AFTER UPDATE ON \(a) WHEN \(tracking) AND OLD.GLOBALID IS NOT NULL
            BEGIN
              INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation)
                VALUES (\(layerId), 'attachment', NEW.GLOBALID, NEW.ATTACHMENTID, 'update');
            END;
            CREATE TRIGGER \(attachmentTrigger("delete")) AFTER DELETE ON \(a) WHEN \(tracking)
            BEGIN
              INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation)
                VALUES (\(layerId), 'attachment', OLD.GLOBALID, OLD.ATTACHMENTID, 'delete');
            END;
            CREATE TRIGGER \(attachmentTrigger("map_insert")) AFTER INSERT ON \(a)
            BEGIN
              INSERT INTO \(m)(base_id, related_id) SELECT \(oid), NEW.id FROM \(t) WHERE \(gid) = NEW.REL_GLOBALID;
            END;
            CREATE TRIGGER \(attachmentTrigger("map_delete")) AFTER DELETE ON \(a)
            BEGIN
              DELETE FROM \(m) WHERE related_id = OLD.id;
            END;
            CREATE TRIGGER \(trigger("map_objectid")) AFTER UPDATE OF \(oid) ON \(t)
            BEGIN
              UPDATE \(m) SET base_id = NEW.\(oid) WHERE base_id = OLD.\(oid);
            END;
            CREATE TRIGGER \(trigger("delete_attachments")) AFTER DELETE ON \(t)
            BEGIN
              DELETE FROM \(a) WHERE REL_GLOBALID = OLD.\(gid);
            END;
            """
    }
}
