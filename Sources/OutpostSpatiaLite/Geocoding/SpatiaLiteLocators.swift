import Foundation
import GRDB
import OutpostGeocoding
import OutpostStorage

/// Locators in `outpost_locators`, their entries in `outpost_locator_entries` with two FTS5
/// tables over the same rows (rowid = the entry's row): `outpost_locator_words` (whole tokens,
/// prefixes) and `outpost_locator_trigrams` (FTS5's `trigram` tokenizer, for misspellings).
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
            let insert = try db.makeStatement(
                sql: """
                    INSERT INTO outpost_locator_entries(locator, kind, entry_id, tokens, min_x, min_y, max_x, max_y, entry)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            let words = try db.makeStatement(sql: "INSERT INTO outpost_locator_words(rowid, tokens) VALUES (?, ?)")
            let trigrams = try db.makeStatement(sql: "INSERT INTO outpost_locator_trigrams(rowid, tokens) VALUES (?, ?)")
            for row in rows {
                try insert.execute(arguments: [locator.name, row.kind, row.id, row.tokens, row.xmin, row.ymin, row.xmax, row.ymax, row.json])
                let id = db.lastInsertedRowID
                try words.execute(arguments: [id, row.tokens])
                try trigrams.execute(arguments: [id, row.tokens])
            }
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

    public func gatherEntries(locator name: String, terms: SearchTerms, limit: Int) throws -> [LocatorEntry] {
        let passes: [(table: String, expression: String?)] = [
            ("outpost_locator_words", terms.fts5WholeExpression), ("outpost_locator_words", terms.fts5Expression),
            ("outpost_locator_words", terms.fts5AnyExpression),
            ("outpost_locator_trigrams", terms.fts5TrigramExpression),
        ]
        return try pool.read { db in
            guard let stored = try String.fetchOne(db, sql: "SELECT name FROM outpost_locators WHERE name = ? COLLATE NOCASE", arguments: [name])
            else { return [] }
            var seen = Set<Int64>()
            var found: [LocatorEntry] = []
            for pass in passes {
                guard found.count < limit, let expression = pass.expression else { continue }
                // The table's name is one of two constants above; the expression is bound.
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT e.row, e.entry FROM \(pass.table) m JOIN outpost_locator_entries e ON e.row = m.rowid
                        WHERE \(pass.table) MATCH ? AND e.locator = ? ORDER BY m.rank LIMIT ?
                        """,
                    arguments: [expression, stored, limit])
                for row in rows where found.count < limit && seen.insert(row[0]).inserted {
                    found.append(try LocatorEntryRow.entry(row[1]))
                }
            }
            return found
        }
    }

    public func entries(locator name: String, in box: LocatorBox, limit: Int) throws -> [LocatorEntry] {
        let cx = (box.xmin + box.xmax) / 2
        let cy = (box.ymin + box.ymax) / 2
        return try pool.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT entry FROM outpost_locator_entries
                    WHERE locator = (SELECT name FROM outpost_locators WHERE name = ? COLLATE NOCASE)
                      AND min_x <= ? AND max_x >= ? AND min_y <= ? AND max_y >= ?
                    ORDER BY ((min_x + max_x) / 2 - ?) * ((min_x + max_x) / 2 - ?) + ((min_y + max_y) / 2 - ?) * ((min_y + max_y) / 2 - ?)
                    LIMIT ?
                    """,
                arguments: [name, box.xmax, box.xmin, box.ymax, box.ymin, cx, cx, cy, cy, limit]
            ).map(LocatorEntryRow.entry)
        }
    }

    public func entry(locator name: String, kind: LocatorEntry.Kind, id: String) throws -> LocatorEntry? {
        try pool.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT entry FROM outpost_locator_entries
                    WHERE locator = (SELECT name FROM outpost_locators WHERE name = ? COLLATE NOCASE) AND kind = ? AND entry_id = ?
                    """,
                arguments: [name, kind.rawValue, id]
            ).map(LocatorEntryRow.entry)
        }
    }
}
