import FuzzCommon
import GRDBSQLite
import OutpostWhereSQL
import OutpostWire

// `where` and `having` clauses: WhereParser, then WhereCompiler (OutpostWhereSQL) for SQLite and PostgreSQL
// against a layer with a field of each kind a clause compares.
//
// Oracles: what compiles carries no text of the user's into the SQL (every literal is a bound
// `?`; the only quoted strings are the compiler's own, the only quoted identifiers the
// layer's fields), has one `?` per argument and no comment or `;`, and SQLite prepares it
// embedded in a query as the store embeds it (the parser-stack budget holds).

/// The layer's fields, as `SpatiaLiteFeatures.resolver(for:)` spells their columns.
private let fields: [(name: String, type: EsriFieldType)] = [
    ("OBJECTID", .oid), ("GlobalID", .globalID), ("name", .string), ("height_m", .double), ("ratio", .single),
    ("planted", .date), ("healthy", .smallInteger), ("visits", .integer), ("ref", .guid), ("notes", .xml),
    ("species code", .string),
]

private func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

private let columns: [String: WhereColumn] = Dictionary(
    uniqueKeysWithValues: fields.map { ($0.name.lowercased(), WhereColumn(sql: "t.\(quoted($0.name))", type: $0.type)) })
private let fieldNames = Set(fields.map(\.name))

/// String literals the compiler writes itself (strftime formats, modifiers, time zones).
private let compilerLiterals: Set<String> = ["%Y", "%m", "%d", "%H", "%M", "%S", "%s", "unixepoch", "now", "start of day", "", "day", "UTC"]

/// Scans SQL as SQLite tokenizes quotes and comments; breaks when the user's text got in.
private func checkSQL(_ fragment: SQLFragment, _ text: String, _ label: String) {
    let sql = Array(fragment.sql.utf8)
    var placeholders = 0
    var index = 0
    func quotedToken(_ quote: UInt8) -> String {
        var value: [UInt8] = []
        index += 1
        while index < sql.count {
            if sql[index] == quote {
                if index + 1 < sql.count, sql[index + 1] == quote {
                    value.append(quote)
                    index += 2
                    continue
                }
                index += 1
                return String(decoding: value, as: UTF8.self)
            }
            value.append(sql[index])
            index += 1
        }
        fuzzCheck(false, "\(label): unterminated quote in \(fragment.sql) from \(text)")
        return ""
    }
    while index < sql.count {
        let byte = sql[index]
        let next: UInt8? = index + 1 < sql.count ? sql[index + 1] : nil
        switch byte {
        case UInt8(ascii: "'"):
            let literal = quotedToken(byte)
            fuzzCheck(compilerLiterals.contains(literal), "\(label): string literal '\(literal)' in \(fragment.sql) from \(text)")
        case UInt8(ascii: "\""):
            let identifier = quotedToken(byte)
            fuzzCheck(fieldNames.contains(identifier), "\(label): identifier \"\(identifier)\" in \(fragment.sql) from \(text)")
        case UInt8(ascii: "?"):
            placeholders += 1
            index += 1
        case UInt8(ascii: ";"):
            fuzzCheck(false, "\(label): ';' in \(fragment.sql) from \(text)")
        case UInt8(ascii: "-") where next == UInt8(ascii: "-"), UInt8(ascii: "/") where next == UInt8(ascii: "*"):
            fuzzCheck(false, "\(label): a comment opens in \(fragment.sql) from \(text)")
        default:
            index += 1
        }
    }
    fuzzCheck(placeholders == fragment.arguments.count, "\(label): \(placeholders) '?' for \(fragment.arguments.count) arguments in \(fragment.sql)")
}

/// An in-memory SQLite with the layer's table and the store's aggregate functions.
nonisolated(unsafe) private let database: OpaquePointer = {
    var db: OpaquePointer?
    guard sqlite3_open(":memory:", &db) == SQLITE_OK, let db else { fatalError("cannot open SQLite") }
    let columnList = fields.map { "\(quoted($0.name)) \($0.type.sqliteType)" }.joined(separator: ", ")
    guard sqlite3_exec(db, "CREATE TABLE trees (\(columnList))", nil, nil, nil) == SQLITE_OK else { fatalError("cannot create the table") }
    for name in ["outpost_stddev", "outpost_var"] {
        sqlite3_create_function_v2(
            db, name, 1, SQLITE_UTF8, nil, nil, { _, _, _ in }, { context in sqlite3_result_null(context) }, nil)
    }
    return db
}()

/// Prepares `sql` (no row is read); breaks unless SQLite accepts it with one parameter per argument.
private func checkPrepares(_ sql: String, arguments: Int, _ text: String) {
    var statement: OpaquePointer?
    let rc = sqlite3_prepare_v2(database, sql, -1, &statement, nil)
    defer { sqlite3_finalize(statement) }
    fuzzCheck(rc == SQLITE_OK, "SQLite refuses \(sql) from \(text): \(String(cString: sqlite3_errmsg(database)))")
    fuzzCheck(Int(sqlite3_bind_parameter_count(statement)) == arguments, "parameter count of \(sql)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = FuzzInput(start, count).text
    let resolve: WhereCompiler.Resolver = { columns[$0.lowercased()] }
    guard let expression = try? WhereParser.parse(text) else { return 0 }
    if let fragment = try? WhereCompiler.compile(expression, columns: resolve, dialect: .sqlite) {
        checkSQL(fragment, text, "sqlite")
        checkPrepares(
            "SELECT count(*) FROM trees AS t WHERE (\(fragment.sql)) AND t.\"OBJECTID\" > 0", arguments: fragment.arguments.count, text)
    }
    if let fragment = try? WhereCompiler.compile(expression, columns: resolve, dialect: .postgres) {
        checkSQL(fragment, text, "postgres")
    }
    if let fragment = try? WhereCompiler.compile(having: text, columns: resolve, dialect: .sqlite) {
        checkSQL(fragment, text, "having")
        checkPrepares(
            "SELECT t.\"name\", count(*) FROM trees AS t GROUP BY t.\"name\" HAVING \(fragment.sql)", arguments: fragment.arguments.count, text)
    }
    return 0
}

@main
enum FuzzWhereMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
