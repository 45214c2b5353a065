import Foundation
import GRDB
import OutpostGeoPackage
import OutpostGeocoding
import OutpostStorage

/// Locators in `outpost_locators`, their entries in `LocatorTables`' tables: the rows and two
/// FTS5 tables over them, `outpost_locator_words` (whole tokens, prefixes) and
/// `outpost_locator_trigrams` (FTS5's `trigram` tokenizer, for misspellings).
public struct SpatiaLiteLocators: LocatorStore, StoreRepository {
    public let database: StoreDatabase

    public func locators() throws -> [StoredLocator] {
        try pool.read { db in
            try String.fetchAll(db, sql: "SELECT definition FROM outpost_locators ORDER BY name").map(StoredLocator.decode)
        }
    }

    public func locator(named name: String) throws -> StoredLocator? {
        try pool.read { db in
            try String.fetchOne(db, sql: "SELECT definition FROM outpost_locators WHERE name = ? COLLATE NOCASE", arguments: [name])
                .map(StoredLocator.decode)
        }
    }

    public func saveLocator(_ locator: StoredLocator, entries: [LocatorEntry]) throws {
        let rows = try entries.map(LocatorEntryRow.init)
        try pool.write { db in
            try Self.removeEntries(of: locator.name, db)
            try db.execute(
                sql: "INSERT INTO outpost_locators(name, definition, built_at) VALUES (?, ?, ?)",
                arguments: [locator.name, locator.json, locator.builtAt])
            let inserter = try LocatorTables.Inserter(db, locator: locator.name)
            for row in rows { try inserter.insert(row) }
        }
    }

    public func updateLocator(
        _ locator: StoredLocator, upserting entries: [LocatorEntry], deleting ids: [String], replacing previous: StoredLocator
    ) throws -> Int? {
        let rows = try entries.map(LocatorEntryRow.init)
        return try pool.write { db in
            let found = try Row.fetchOne(
                db, sql: "SELECT name, definition FROM outpost_locators WHERE name = ? COLLATE NOCASE", arguments: [locator.name])
            guard let found, let stored = found[0] as String? else { throw StoreError.serviceNotFound(locator.name) }
            guard previous.isUnchanged(in: try StoredLocator.decode(found[1])) else { return nil }
            let kind = locator.definition.kind.rawValue
            let select = try db.makeStatement(sql: "SELECT row FROM outpost_locator_entries WHERE locator = ? AND kind = ? AND entry_id = ?")
            for id in Set(ids + rows.map(\.id)) {
                guard let row = try Int64.fetchOne(select, arguments: [stored, kind, id]) else { continue }
                try db.execute(sql: "DELETE FROM outpost_locator_words WHERE rowid = ?", arguments: [row])
                try db.execute(sql: "DELETE FROM outpost_locator_trigrams WHERE rowid = ?", arguments: [row])
                try db.execute(sql: "DELETE FROM outpost_locator_entries WHERE row = ?", arguments: [row])
            }
            let inserter = try LocatorTables.Inserter(db, locator: stored)
            for row in rows { try inserter.insert(row) }
            var updated = locator
            updated.entryCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM outpost_locator_entries WHERE locator = ?", arguments: [stored]) ?? 0
            try db.execute(
                sql: "UPDATE outpost_locators SET definition = ?, built_at = ? WHERE name = ?", arguments: [updated.json, updated.builtAt, stored])
            return updated.entryCount
        }
    }

    public func deleteLocator(named name: String) throws {
        try pool.write { db in
            guard try Self.removeEntries(of: name, db) else { throw StoreError.serviceNotFound(name) }
        }
    }

    /// Removes the locator's row and entries; false when it had none.
    @discardableResult
    static func removeEntries(of name: String, _ db: Database) throws -> Bool {
        let selected = "SELECT row FROM outpost_locator_entries WHERE locator = (SELECT name FROM outpost_locators WHERE name = ? COLLATE NOCASE)"
        try db.execute(sql: "DELETE FROM outpost_locator_words WHERE rowid IN (\(selected))", arguments: [name])
        try db.execute(sql: "DELETE FROM outpost_locator_trigrams WHERE rowid IN (\(selected))", arguments: [name])
        try db.execute(
            sql: "DELETE FROM outpost_locator_entries WHERE locator = (SELECT name FROM outpost_locators WHERE name = ? COLLATE NOCASE)",
            arguments: [name])
        try db.execute(sql: "DELETE FROM outpost_locators WHERE name = ? COLLATE NOCASE", arguments: [name])
        return db.changesCount > 0
    }

    /// The locator's name as stored, for a name in any case; nil when there is none.
    static func storedName(_ name: String, _ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT name FROM outpost_locators WHERE name = ? COLLATE NOCASE", arguments: [name])
    }

    public func gatherEntries(locator name: String, terms: SearchTerms, limit: Int) throws -> [LocatorEntry] {
        try pool.read { db in
            guard let stored = try Self.storedName(name, db) else { return [] }
            return try LocatorTables.gatherEntries(db, locator: stored, terms: terms, limit: limit)
        }
    }

    public func entries(locator name: String, in box: LocatorBox, limit: Int) throws -> [LocatorEntry] {
        try pool.read { db in
            guard let stored = try Self.storedName(name, db) else { return [] }
            return try LocatorTables.entries(db, locator: stored, in: box, limit: limit)
        }
    }

    public func entry(locator name: String, kind: LocatorEntry.Kind, id: String) throws -> LocatorEntry? {
        try pool.read { db in
            guard let stored = try Self.storedName(name, db) else { return nil }
            return try LocatorTables.entry(db, locator: stored, kind: kind, id: id)
        }
    }

    public func forEachEntryRow(locator name: String, _ body: (LocatorEntryRow) throws -> Void) throws {
        try pool.read { db in
            guard let stored = try Self.storedName(name, db) else { throw StoreError.serviceNotFound(name) }
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT kind, entry_id, tokens, min_x, min_y, max_x, max_y, entry FROM outpost_locator_entries WHERE locator = ? ORDER BY row",
                arguments: [stored])
            while let row = try rows.next() {
                try body(
                    LocatorEntryRow(kind: row[0], id: row[1], tokens: row[2], xmin: row[3], ymin: row[4], xmax: row[5], ymax: row[6], json: row[7]))
            }
        }
    }
}
