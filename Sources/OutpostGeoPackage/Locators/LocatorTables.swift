import GRDB
import OutpostGeocoding

/// A locator index in SQLite (docs/geocoding.md, "Locators" and "Offline"): entries with their
/// tokens in `outpost_locator_entries`, kept twice more by FTS5 (whole words and prefixes;
/// three-letter pieces for misspellings) with the entry's row as rowid. The SpatiaLite store
/// (migration `v22-locators`) and a locator file hold the same tables, so both gather alike.
public enum LocatorTables {
    /// The tables as migration `v22-locators` made them; a locator file is made by this and
    /// must hold exactly what it makes.
    public static let schema = """
        CREATE TABLE outpost_locators (
            name TEXT NOT NULL PRIMARY KEY COLLATE NOCASE, definition TEXT NOT NULL, built_at INTEGER NOT NULL);
        CREATE TABLE outpost_locator_entries (
            row INTEGER PRIMARY KEY, locator TEXT NOT NULL, kind TEXT NOT NULL, entry_id TEXT NOT NULL, tokens TEXT NOT NULL,
            min_x REAL NOT NULL, min_y REAL NOT NULL, max_x REAL NOT NULL, max_y REAL NOT NULL, entry TEXT NOT NULL,
            UNIQUE (locator, kind, entry_id));
        CREATE INDEX outpost_locator_entries_x ON outpost_locator_entries(locator, min_x);
        CREATE VIRTUAL TABLE outpost_locator_words USING fts5(tokens, tokenize = 'unicode61');
        CREATE VIRTUAL TABLE outpost_locator_trigrams USING fts5(tokens, tokenize = 'trigram');
        """

    /// Writes rows for the locator `name` (its row already written), each into the entries and both text indexes.
    public struct Inserter {
        let db: Database
        let name: String
        let insert: Statement
        let words: Statement
        let trigrams: Statement

        public init(_ db: Database, locator name: String) throws {
            self.db = db
            self.name = name
            insert = try db.makeStatement(
                sql: """
                    INSERT INTO outpost_locator_entries(locator, kind, entry_id, tokens, min_x, min_y, max_x, max_y, entry)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            words = try db.makeStatement(sql: "INSERT INTO outpost_locator_words(rowid, tokens) VALUES (?, ?)")
            trigrams = try db.makeStatement(sql: "INSERT INTO outpost_locator_trigrams(rowid, tokens) VALUES (?, ?)")
        }

        public func insert(_ row: LocatorEntryRow) throws {
            try insert.execute(arguments: [name, row.kind, row.id, row.tokens, row.xmin, row.ymin, row.xmax, row.ymax, row.json])
            let id = db.lastInsertedRowID
            try words.execute(arguments: [id, row.tokens])
            try trigrams.execute(arguments: [id, row.tokens])
        }
    }

    /// `LocatorIndex.gatherEntries` over the tables, for the locator stored as `name` (its
    /// exact stored spelling).
    public static func gatherEntries(_ db: Database, locator name: String, terms: SearchTerms, limit: Int) throws -> [LocatorEntry] {
        let passes: [(table: String, expression: String?)] = [
            ("outpost_locator_words", terms.fts5WholeExpression), ("outpost_locator_words", terms.fts5Expression),
            ("outpost_locator_words", terms.fts5AnyExpression),
            ("outpost_locator_trigrams", terms.fts5TrigramExpression),
        ]
        var seen = Set<Int64>()
        var found: [LocatorEntry] = []
        var limit = limit
        for (index, pass) in passes.enumerated() {
            if index == 1 { limit = SearchTerms.limitAfterTheWholePass(found: found.count, limit: limit) }
            guard found.count < limit, let expression = pass.expression else { continue }
            // The table's name is one of two constants above; the expression is bound.
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.row, e.entry FROM \(pass.table) m JOIN outpost_locator_entries e ON e.row = m.rowid
                    WHERE \(pass.table) MATCH ? AND e.locator = ? ORDER BY m.rank LIMIT ?
                    """,
                arguments: [expression, name, limit])
            for row in rows where found.count < limit && seen.insert(row[0]).inserted {
                found.append(try LocatorEntryRow.entry(row[1]))
            }
        }
        return found
    }

    /// `LocatorIndex.entries(in:limit:)` over the tables.
    public static func entries(_ db: Database, locator name: String, in box: LocatorBox, limit: Int) throws -> [LocatorEntry] {
        let cx = (box.xmin + box.xmax) / 2
        let cy = (box.ymin + box.ymax) / 2
        return try String.fetchAll(
            db,
            sql: """
                SELECT entry FROM outpost_locator_entries
                WHERE locator = ? AND min_x <= ? AND max_x >= ? AND min_y <= ? AND max_y >= ?
                ORDER BY ((min_x + max_x) / 2 - ?) * ((min_x + max_x) / 2 - ?) + ((min_y + max_y) / 2 - ?) * ((min_y + max_y) / 2 - ?)
                LIMIT ?
                """,
            arguments: [name, box.xmax, box.xmin, box.ymax, box.ymin, cx, cx, cy, cy, limit]
        ).map(LocatorEntryRow.entry)
    }

    /// `LocatorIndex.entry(kind:id:)` over the tables.
    public static func entry(_ db: Database, locator name: String, kind: LocatorEntry.Kind, id: String) throws -> LocatorEntry? {
        try String.fetchOne(
            db, sql: "SELECT entry FROM outpost_locator_entries WHERE locator = ? AND kind = ? AND entry_id = ?",
            arguments: [name, kind.rawValue, id]
        ).map(LocatorEntryRow.entry)
    }
}
