import Foundation
import GRDB

/// The row writes of a merge: OBJECTIDs moved out of the server's way, and the delta's
/// features and attachments written over the local ones.
extension ReplicaDeltaMerge {
    /// Gives acknowledged local adds the server's OBJECTIDs; a local row in the way (an add
    /// made while the sync ran) moves to a fresh id. Returns how many changed.
    static func assignObjectIds(_ assigned: [(globalId: String, objectId: Int64)], in table: Table, db: Database) throws -> Int {
        let t = table.tableName.quotedDatabaseIdentifier
        let oid = table.objectIdField.quotedDatabaseIdentifier
        let gid = table.globalIdField.quotedDatabaseIdentifier
        var moved = 0
        for (globalId, objectId) in assigned {
            guard let current = try Int64.fetchOne(db, sql: "SELECT \(oid) FROM \(t) WHERE \(gid) = ?", arguments: [globalId]),
                current != objectId
            else { continue }
            try makeRoom(for: objectId, in: table, db: db)
            try db.execute(sql: "UPDATE \(t) SET \(oid) = ? WHERE \(gid) = ?", arguments: [objectId, globalId])
            moved += 1
        }
        return moved
    }

    /// Moves the row holding `objectId`, if any, to a fresh id above every id in use.
    static func makeRoom(for objectId: Int64, in table: Table, db: Database) throws {
        let t = table.tableName.quotedDatabaseIdentifier
        let oid = table.objectIdField.quotedDatabaseIdentifier
        guard try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM \(t) WHERE \(oid) = ?", arguments: [objectId]) == true else { return }
        let fresh =
            max(
                objectId, try Int64.fetchOne(db, sql: "SELECT max(\(oid)) FROM \(t)") ?? 0,
                try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table.tableName]) ?? 0) + 1
        try db.execute(sql: "UPDATE \(t) SET \(oid) = ? WHERE \(oid) = ?", arguments: [fresh, objectId])
    }

    /// Writes the delta's row of `globalId` over the local one (or adds it), OBJECTID included;
    /// `columns` are those both tables have. Statements are cached: a delta of thousands of
    /// changes prepares each (and the triggers compiled into it) once.
    static func upsertFeature(_ globalId: String, from deltaTable: String, into table: Table, columns: [String], db: Database) throws {
        let t = table.tableName.quotedDatabaseIdentifier
        let d = "delta.\(deltaTable.quotedDatabaseIdentifier)"
        let oid = table.objectIdField.quotedDatabaseIdentifier
        let gid = table.globalIdField.quotedDatabaseIdentifier
        guard let serverObjectId = try Int64.fetchOne(db.cachedStatement(sql: "SELECT \(oid) FROM \(d) WHERE \(gid) = ?"), arguments: [globalId])
        else { throw Failure.missingRow(globalId: globalId) }
        let localObjectId = try Int64.fetchOne(db.cachedStatement(sql: "SELECT \(oid) FROM \(t) WHERE \(gid) = ?"), arguments: [globalId])
        if localObjectId != serverObjectId { try makeRoom(for: serverObjectId, in: table, db: db) }
        if localObjectId != nil {
            // The GlobalID never changes (a trigger guards it): every other column is the server's.
            let updated = columns.filter { $0 != table.globalIdField }
            try db.cachedStatement(
                sql: """
                    UPDATE \(t) SET (\(updated.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) =
                        (SELECT \(updated.map { "s.\($0.quotedDatabaseIdentifier)" }.joined(separator: ", ")) FROM \(d) s WHERE s.\(gid) = ?)
                    WHERE \(gid) = ?
                    """
            ).execute(arguments: [globalId, globalId])
        } else {
            let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
            try db.cachedStatement(sql: "INSERT INTO \(t) (\(list)) SELECT \(list) FROM \(d) WHERE \(gid) = ?").execute(arguments: [globalId])
        }
    }

    /// Writes the delta's attachment `globalId` over the local one (or adds it).
    static func upsertAttachment(_ globalId: String, from deltaTable: String, into table: String, db: Database) throws {
        let columns = ["data", "content_type", "ATTACHMENTID", "REL_GLOBALID", "ATT_NAME", "DATA_SIZE", "KEYWORDS"]
        let t = table.quotedDatabaseIdentifier
        let d = "delta.\(deltaTable.quotedDatabaseIdentifier)"
        if try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM \(t) WHERE GLOBALID = ?", arguments: [globalId]) == true {
            try db.execute(
                sql:
                    "UPDATE \(t) SET (\(columns.joined(separator: ", "))) = (SELECT \(columns.map { "s.\($0)" }.joined(separator: ", ")) FROM \(d) s WHERE s.GLOBALID = ?) WHERE GLOBALID = ?",
                arguments: [globalId, globalId])
        } else {
            try db.execute(
                sql:
                    "INSERT INTO \(t) (GLOBALID, \(columns.joined(separator: ", "))) SELECT GLOBALID, \(columns.joined(separator: ", ")) FROM \(d) WHERE GLOBALID = ?",
                arguments: [globalId])
        }
    }
}
