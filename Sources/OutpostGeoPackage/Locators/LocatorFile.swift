import Foundation
import GRDB
import OutpostGeocoding

/// A locator taken offline (docs/geocoding.md, "Offline"): one SQLite file holding one locator
/// in `LocatorTables`' tables, marked by its application id and format version. The server
/// writes it (`GeocodeServer/exportLocator`); the client library's `LocatorTask` opens it as
/// untrusted and asks it what the service asks its store, so both answer alike.
public final class LocatorFile: LocatorIndex, Sendable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Not a locator file, or one that breaks its format.
        case invalid(String)
        /// Not readable as SQLite.
        case unreadable(String)

        public var description: String {
            switch self {
            case .invalid(let reason): "not a locator file: \(reason)"
            case .unreadable(let reason): "unreadable locator file: \(reason)"
            }
        }
    }

    /// `PRAGMA application_id`: "OLOC".
    public static let applicationId: Int32 = 0x4F4C_4F43
    /// `PRAGMA user_version`: the format's version.
    public static let formatVersion = 1

    /// The locator's name as the server had it (its `Loc_name`).
    public let name: String
    public let entryCount: Int
    /// When the server built the locator, in milliseconds since 1970.
    public let builtAt: Int64
    public let knownLocalities: KnownLocalities
    let queue: DatabaseQueue

    /// What the file's `outpost_locators.definition` (a stored locator's JSON) tells a reader.
    struct Header: Decodable {
        var entryCount: Int
        var knownLocalities: [[String]]
        var builtAt: Int64
    }

    /// Opens the file at `path` read-only and defensively (`UntrustedFile`), and checks it
    /// before anything is asked of it: the application id and version, exactly the tables
    /// `LocatorTables.schema` makes (no view, trigger or other virtual table), one locator.
    public init(path: String) throws(Failure) {
        try Self.refuseWriteAheadLogging(path)
        let opened: UntrustedFile.Opened
        do { opened = try UntrustedFile.open(path, limits: .generous) } catch { throw Self.failure(error) }
        do {
            (name, entryCount, builtAt, knownLocalities) = try opened.queue.read { db in try Self.check(db) }
        } catch {
            try? opened.queue.close()
            throw Self.failure(error)
        }
        queue = opened.queue
    }

    /// A locator file is never in WAL mode (the server writes it with no journal). One that
    /// claims to be would have a read-only connection make `-wal` and `-shm` files beside it
    /// that it cannot remove: refused from its header's read and write versions (bytes 18, 19)
    /// before SQLite opens it.
    static func refuseWriteAheadLogging(_ path: String) throws(Failure) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let header = [UInt8]((try? handle.read(upToCount: 20)) ?? Data())
        if header.count == 20, header[18] == 2 || header[19] == 2 { throw .invalid("it is in WAL mode, which a locator file never is") }
    }

    /// A question asked of the open file; a page found damaged (SQLite's corruption errors)
    /// is answered as `Failure.unreadable`, never as SQLite's own error.
    func reading<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try queue.read(body) } catch let error as DatabaseError {
            throw Failure.unreadable("it is damaged (\(error.message ?? "SQLite error \(error.resultCode)"))")
        }
    }

    static func failure(_ error: any Error) -> Failure {
        switch error {
        case let failure as Failure: failure
        case let failure as ReplicaChanges.Failure:
            switch failure {
            case .invalid(let reason): .invalid(reason)
            case .unreadable(let reason): .unreadable(reason)
            }
        case let error as DatabaseError: .unreadable(error.message ?? error.description)
        default: .invalid(String(describing: error))
        }
    }

    static func check(_ db: Database) throws -> (String, Int, Int64, KnownLocalities) {
        guard try Int32.fetchOne(db, sql: "PRAGMA application_id") == applicationId else {
            throw Failure.invalid("its application id is not a locator file's")
        }
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        guard version == formatVersion else { throw Failure.invalid("format version \(version); this library reads \(formatVersion)") }
        try checkSchema(db)
        let rows = try Row.fetchAll(db, sql: "SELECT name, definition FROM outpost_locators LIMIT 2")
        guard rows.count == 1, let name = rows[0][0] as String?, let definition = rows[0][1] as String? else {
            throw Failure.invalid("it must hold exactly one locator")
        }
        let header: Header
        do { header = try JSONDecoder().decode(Header.self, from: Data(definition.utf8)) } catch {
            throw Failure.invalid("the locator's definition is not a stored locator's")
        }
        return (name, header.entryCount, header.builtAt, KnownLocalities(tokens: header.knownLocalities))
    }

    /// Exactly the objects `LocatorTables.schema` makes in this SQLite: the same names and types,
    /// and the same SQL for all but FTS5's own shadow tables (whose SQL is SQLite's to choose);
    /// plain tables without generated or hidden columns.
    static func checkSchema(_ db: Database) throws {
        guard let expected = expectedObjects else { throw Failure.invalid("this SQLite cannot make a locator file's tables (FTS5)") }
        let found = try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master").map { row in
            SchemaObject(type: row[0], name: row[1], sql: row[2])
        }
        guard Set(found.map(\.key)) == Set(expected.keys) else {
            let extra = Set(found.map(\.key)).subtracting(expected.keys).sorted().first
            throw Failure.invalid(extra.map { "it holds \($0), which a locator file never does" } ?? "it lacks a locator file's tables")
        }
        for object in found {
            // A shadow table's SQL is SQLite's to choose, but it is a plain table's.
            let declared = object.isShadow ? object.sql?.uppercased().hasPrefix("CREATE TABLE") == true : expected[object.key] == object.sql
            guard declared else { throw Failure.invalid("\(object.name) is not declared as a locator file declares it") }
        }
        _ = try UntrustedFile.tables(db)
    }

    struct SchemaObject {
        var type: String
        var name: String
        var sql: String?
        var key: String { "\(type) \(name)" }
        /// An FTS5 table's own storage (`<table>_data`, `_idx`, `_content`, `_docsize`, `_config`).
        var isShadow: Bool {
            type == "table" && ["outpost_locator_words_", "outpost_locator_trigrams_"].contains { name.hasPrefix($0) }
        }
    }

    /// `LocatorTables.schema`'s objects as this SQLite makes them, made once.
    static let expectedObjects: [String: String?]? = try? expectedSchema()

    static func expectedSchema() throws -> [String: String?] {
        let queue = try DatabaseQueue()
        return try queue.write { db in
            try db.execute(sql: LocatorTables.schema)
            return Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master").map { row in
                    (SchemaObject(type: row[0], name: row[1], sql: row[2]).key, row[2] as String?)
                })
        }
    }

    public func gatherEntries(terms: SearchTerms, limit: Int) throws -> [LocatorEntry] {
        try reading { db in try LocatorTables.gatherEntries(db, locator: name, terms: terms, limit: limit) }
    }

    public func entries(in box: LocatorBox, limit: Int) throws -> [LocatorEntry] {
        try reading { db in try LocatorTables.entries(db, locator: name, in: box, limit: limit) }
    }

    public func entry(kind: LocatorEntry.Kind, id: String) throws -> LocatorEntry? {
        try reading { db in try LocatorTables.entry(db, locator: name, kind: kind, id: id) }
    }
}
