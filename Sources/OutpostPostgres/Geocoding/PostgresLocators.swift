import Foundation
import OutpostGeocoding
import OutpostStorage

/// Locators in `outpost_locators`, their entries in `outpost_locator_entries` with PostgreSQL's
/// own text search over their tokens: `to_tsvector('simple', tokens)` (a GIN expression index) for whole words and prefixes, and a
/// `pg_trgm` GIN index for misspellings (docs/geocoding.md, "Locators").
public struct PostgresLocators: LocatorStore {
    let pool: PostgresPool

    public func locators() throws -> [StoredLocator] {
        try pool.query("SELECT definition FROM outpost_locators ORDER BY name").rows.compactMap { $0.string(0) }.map(StoredLocator.decode)
    }

    public func locator(named name: String) throws -> StoredLocator? {
        try pool.query("SELECT definition FROM outpost_locators WHERE lower(name) = lower(\(name))").first?.string(0).map(StoredLocator.decode)
    }

    public func saveLocator(_ locator: StoredLocator, entries: [LocatorEntry]) throws {
        let rows = try entries.map(LocatorEntryRow.init)
        try pool.transaction { connection in
            // Entries go with their locator's row (ON DELETE CASCADE).
            try connection.query("DELETE FROM outpost_locators WHERE lower(name) = lower(\(locator.name))")
            try connection.query(
                "INSERT INTO outpost_locators(name, definition, built_at) VALUES (\(locator.name), \(locator.json), \(locator.builtAt))")
            try connection.copyIn("COPY outpost_locator_entries (locator, kind, entry_id, tokens, min_x, min_y, max_x, max_y, entry) FROM STDIN") {
                write in
                var buffer = PostgresCopy.RowBuffer(capacity: PostgresCopy.chunkSize + 4096)
                for row in rows {
                    for cell in [locator.name, row.kind, row.id, row.tokens] { buffer.append(cell) }
                    for value in [row.xmin, row.ymin, row.xmax, row.ymax] { buffer.append(String(value)) }
                    buffer.append(row.json)
                    buffer.end()
                    if buffer.bytes.count >= PostgresCopy.chunkSize { try write(buffer.take()) }
                }
                try write(buffer.take())
            }
        }
    }

    public func updateLocator(
        _ locator: StoredLocator, upserting entries: [LocatorEntry], deleting ids: [String], replacing previous: StoredLocator
    ) throws -> Int? {
        let rows = try entries.map(LocatorEntryRow.init)
        return try pool.transaction { connection in
            let found = try connection.query("SELECT name, definition FROM outpost_locators WHERE lower(name) = lower(\(locator.name)) FOR UPDATE")
            guard let stored = found.first?.string(0), let definition = found.first?.string(1) else {
                throw StoreError.serviceNotFound(locator.name)
            }
            guard previous.isUnchanged(in: try StoredLocator.decode(definition)) else { return nil }
            let kind = locator.definition.kind.rawValue
            for id in Set(ids + rows.map(\.id)) {
                try connection.query("DELETE FROM outpost_locator_entries WHERE locator = \(stored) AND kind = \(kind) AND entry_id = \(id)")
            }
            for row in rows {
                try connection.query(
                    """
                    INSERT INTO outpost_locator_entries (locator, kind, entry_id, tokens, min_x, min_y, max_x, max_y, entry)
                    VALUES (\(stored), \(row.kind), \(row.id), \(row.tokens), \(row.xmin), \(row.ymin), \(row.xmax), \(row.ymax), \(row.json))
                    """)
            }
            var updated = locator
            let counted = try connection.query("SELECT count(*) FROM outpost_locator_entries WHERE locator = \(stored)").first?.string(0)
            updated.entryCount = counted.flatMap { Int($0) } ?? 0
            try connection.query("UPDATE outpost_locators SET definition = \(updated.json), built_at = \(updated.builtAt) WHERE name = \(stored)")
            return updated.entryCount
        }
    }

    public func deleteLocator(named name: String) throws {
        let deleted = try pool.query("DELETE FROM outpost_locators WHERE lower(name) = lower(\(name)) RETURNING name")
        guard deleted.first != nil else { throw StoreError.serviceNotFound(name) }
    }

    public func gatherEntries(locator name: String, terms: SearchTerms, limit: Int) throws -> [LocatorEntry] {
        guard let stored = try pool.query("SELECT name FROM outpost_locators WHERE lower(name) = lower(\(name))").first?.string(0) else {
            return []
        }
        var seen = Set<String>()
        var found: [LocatorEntry] = []
        var limit = limit
        func take(_ result: PostgresResult) throws {
            for row in result.rows where found.count < limit {
                guard let key = row.string(0), seen.insert(key).inserted, let json = row.string(1) else { continue }
                found.append(try LocatorEntryRow.entry(json))
            }
        }
        for (index, expression) in [terms.tsQueryWholeExpression, terms.tsQueryExpression, terms.tsQueryAnyExpression].enumerated() {
            if index == 1 { limit = SearchTerms.limitAfterTheWholePass(found: found.count, limit: limit) }
            guard found.count < limit, let expression else { continue }
            try take(
                pool.query(
                    """
                    SELECT kind || ':' || entry_id, entry FROM outpost_locator_entries
                    WHERE locator = \(stored) AND to_tsvector('simple', tokens) @@ to_tsquery('simple', \(expression))
                    ORDER BY ts_rank(to_tsvector('simple', tokens), to_tsquery('simple', \(expression))) DESC, entry_id LIMIT \(limit)
                    """))
        }
        if found.count < limit, let text = terms.trigramText {
            // Each loose word (and the prefix) within an entry's words at word similarity 0.3,
            // ORed: as FTS5's trigram pass meets an entry by any one word's pieces, so a
            // misspelt street still meets its entries in another town ("3 Hil Street,
            // Springfield" meets Shelbyville's Hill Street). Ranked by the whole text's.
            var condition = PostgresQuery.StringInterpolation(literalCapacity: 64, interpolationCount: 8)
            condition.appendLiteral("SELECT kind || ':' || entry_id, entry FROM outpost_locator_entries WHERE locator = ")
            condition.appendInterpolation(stored)
            for (index, word) in (terms.looseTokens + [terms.prefix].compactMap { $0 }).enumerated() {
                condition.appendLiteral(index == 0 ? " AND (" : " OR ")
                condition.appendInterpolation(word)
                condition.appendLiteral(" <% tokens")
            }
            condition.appendLiteral(") ORDER BY word_similarity(")
            condition.appendInterpolation(text)
            condition.appendLiteral(", tokens) DESC, entry_id LIMIT ")
            condition.appendInterpolation(limit)
            let query = PostgresQuery(stringInterpolation: condition)
            try take(
                pool.transaction { connection in
                    try connection.query("SET LOCAL pg_trgm.word_similarity_threshold = 0.3")
                    return try connection.query(query)
                })
        }
        return found
    }

    public func entries(locator name: String, in box: LocatorBox, limit: Int) throws -> [LocatorEntry] {
        let cx = (box.xmin + box.xmax) / 2
        let cy = (box.ymin + box.ymax) / 2
        return try pool.query(
            """
            SELECT entry FROM outpost_locator_entries
            WHERE locator = (SELECT name FROM outpost_locators WHERE lower(name) = lower(\(name)))
              AND min_x <= \(box.xmax) AND max_x >= \(box.xmin) AND min_y <= \(box.ymax) AND max_y >= \(box.ymin)
            ORDER BY power((min_x + max_x) / 2 - \(cx), 2) + power((min_y + max_y) / 2 - \(cy), 2) LIMIT \(limit)
            """
        ).rows.compactMap { $0.string(0) }.map(LocatorEntryRow.entry)
    }

    public func entry(locator name: String, kind: LocatorEntry.Kind, id: String) throws -> LocatorEntry? {
        try pool.query(
            """
            SELECT entry FROM outpost_locator_entries
            WHERE locator = (SELECT name FROM outpost_locators WHERE lower(name) = lower(\(name))) AND kind = \(kind.rawValue) AND entry_id = \(id)
            """
        ).first?.string(0).map(LocatorEntryRow.entry)
    }
}

extension PostgresLocators {
    /// Rows a page read while writing a locator file.
    static let exportPage = 5_000

    public func forEachEntryRow(locator name: String, _ body: (LocatorEntryRow) throws -> Void) throws {
        guard let stored = try pool.query("SELECT name FROM outpost_locators WHERE lower(name) = lower(\(name))").first?.string(0) else {
            throw StoreError.serviceNotFound(name)
        }
        // Pages by the primary key, so a long export holds no transaction open.
        var after = (kind: "", id: "")
        while true {
            let page = try pool.query(
                """
                SELECT kind, entry_id, tokens, min_x, min_y, max_x, max_y, entry FROM outpost_locator_entries
                WHERE locator = \(stored) AND (kind, entry_id) > (\(after.kind), \(after.id))
                ORDER BY kind, entry_id LIMIT \(Self.exportPage)
                """
            ).rows
            for row in page {
                guard let kind = row.string(0), let id = row.string(1), let tokens = row.string(2), let json = row.string(7) else { continue }
                try body(
                    LocatorEntryRow(
                        kind: kind, id: id, tokens: tokens, xmin: try row.double(3) ?? 0, ymin: try row.double(4) ?? 0,
                        xmax: try row.double(5) ?? 0, ymax: try row.double(6) ?? 0, json: json))
                after = (kind, id)
            }
            if page.count < Self.exportPage { return }
        }
    }
}
