import CSQLiteDefensive
import Foundation
import GRDB

/// What reading an untrusted SQLite file (an uploaded delta, a downloaded one) may cost.
///
/// A file never yields more bytes than it holds: values made up by the schema (a generated
/// column of `zeroblob(n)`, a default) are how a 96 KiB file asks for gigabytes. So every
/// value, and all values read together, are bounded by the file's own size, enforced by
/// SQLite while reading (`SQLITE_LIMIT_LENGTH`) and by the reader as it goes.
public struct UntrustedFileLimits: Sendable, Equatable {
    /// The largest file accepted.
    public var maximumFileBytes: Int
    /// The largest single value (an attachment's bytes).
    public var maximumValueBytes: Int
    /// The most change-log rows read.
    public var maximumChanges: Int

    public init(maximumFileBytes: Int = .max, maximumValueBytes: Int = 1 << 30, maximumChanges: Int = .max) {
        self.maximumFileBytes = maximumFileBytes
        self.maximumValueBytes = maximumValueBytes
        self.maximumChanges = maximumChanges
    }

    /// A client reading its own files and the server's deltas: bounded by the file alone (and
    /// SQLite's own largest value).
    public static let generous = UntrustedFileLimits()
}

/// Opens an untrusted SQLite file read-only and defensively: `SQLITE_DBCONFIG_DEFENSIVE`,
/// `trusted_schema` off, triggers and views disabled, no function of ours registered, no
/// memory map, and no value longer than the file itself.
enum UntrustedFile {
    struct Opened {
        let queue: DatabaseQueue
        /// Bytes all values read from the file may add up to.
        let byteBudget: Int
    }

    static func open(_ path: String, limits: UntrustedFileLimits) throws -> Opened {
        func size(_ path: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        }
        guard FileManager.default.fileExists(atPath: path) else { throw ReplicaChanges.Failure.unreadable("no file at \(path)") }
        // A file in WAL mode (a device's own) holds its latest pages in its -wal file.
        let fileBytes = size(path) + size(path + "-wal")
        guard fileBytes <= limits.maximumFileBytes else {
            throw ReplicaChanges.Failure.invalid("the file has \(fileBytes) bytes, more than the limit of \(limits.maximumFileBytes)")
        }
        // Slack for values SQLite expands legitimately (a number read as text).
        let valueLimit = Int32(clamping: min(limits.maximumValueBytes, fileBytes + 4096))
        var configuration = Configuration()
        configuration.readonly = true
        configuration.prepareDatabase { db in
            guard let connection = db.sqliteConnection else { return }
            let rc = outpost_sqlite_enable_defensive(connection)
            guard rc == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: "cannot open defensively") }
            sqlite3_limit(connection, SQLITE_LIMIT_LENGTH, valueLimit)
            sqlite3_limit(connection, SQLITE_LIMIT_SQL_LENGTH, 1 << 20)
            sqlite3_limit(connection, SQLITE_LIMIT_COLUMN, 2000)
            sqlite3_limit(connection, SQLITE_LIMIT_EXPR_DEPTH, 100)
            sqlite3_limit(connection, SQLITE_LIMIT_ATTACHED, 0)
            try db.execute(sql: "PRAGMA trusted_schema = OFF; PRAGMA mmap_size = 0; PRAGMA cell_size_check = ON")
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        // A file whose header claims more pages than it holds is damaged or lying.
        let pages = try queue.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0, try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096)
        }
        guard pages.0 * pages.1 <= fileBytes + pages.1 else {
            try? queue.close()
            throw ReplicaChanges.Failure.invalid("the file claims \(pages.0) pages of \(pages.1) bytes but holds \(fileBytes) bytes")
        }
        return Opened(queue: queue, byteBudget: fileBytes + 65536)
    }

    /// Opens the file, runs `body` in a read transaction with the file's byte budget, and
    /// answers every failure as a `ReplicaChanges.Failure`.
    static func read<T>(
        _ path: String, limits: UntrustedFileLimits,
        _ body: (Database, ReadBudget) throws -> T
    ) throws(ReplicaChanges.Failure) -> T {
        // A read-only connection to a file in WAL mode makes its -wal and -shm files and cannot
        // remove them: those it made go once it is closed (an uploaded item's folder holds its
        // file alone). It writes nothing to them.
        let sidecars = ["-wal", "-shm"].map { path + $0 }.filter { !FileManager.default.fileExists(atPath: $0) }
        defer { for sidecar in sidecars { try? FileManager.default.removeItem(atPath: sidecar) } }
        do {
            let file = try open(path, limits: limits)
            defer { try? file.queue.close() }
            let budget = ReadBudget(bytes: file.byteBudget, limits: limits)
            return try file.queue.read { db in try body(db, budget) }
        } catch let failure as ReplicaChanges.Failure {
            throw failure
        } catch let error as ReplicaFile.Failure {
            throw .invalid(error.description)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_TOOBIG {
            throw .invalid("a value is larger than the file holds")
        } catch let error as DatabaseError {
            throw .unreadable(error.message ?? error.description)
        } catch {
            throw .unreadable(String(describing: error))
        }
    }

    /// The file's tables: the plain ones, each checked before any row is read to have only
    /// stored columns (generated columns compute values the file does not hold, hidden ones
    /// belong to virtual tables), and the virtual ones with their SQL, upper-cased.
    static func tables(_ db: Database) throws -> (plain: [String], virtual: [(name: String, sql: String)]) {
        var plain: [String] = []
        var virtual: [(name: String, sql: String)] = []
        for row in try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table'") {
            let name: String = row[0]
            let sql = (row[1] as String? ?? "").uppercased()
            if sql.hasPrefix("CREATE VIRTUAL") {
                virtual.append((name, sql))
                continue
            }
            let hidden = try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_table_xinfo(?) WHERE hidden <> 0", arguments: [name]) ?? 0
            if hidden > 0 {
                throw ReplicaChanges.Failure.invalid("table \(name) has generated or hidden columns, which a replica file never has")
            }
            plain.append(name)
        }
        return (plain, virtual)
    }
}

/// Counts the bytes read from an untrusted file against its budget, as they are read.
final class ReadBudget {
    private var left: Int
    let limits: UntrustedFileLimits
    private var changes = 0

    init(bytes: Int, limits: UntrustedFileLimits) {
        left = bytes
        self.limits = limits
    }

    func spend(_ bytes: Int) throws {
        left -= bytes
        if left < 0 { throw ReplicaChanges.Failure.invalid("the file yields more data than it holds") }
    }

    func countChange() throws {
        changes += 1
        if changes > limits.maximumChanges {
            throw ReplicaChanges.Failure.invalid("more than \(limits.maximumChanges) changes")
        }
    }
}

extension ReplicaFile {
    /// Checks a replica file someone else made (a downloaded one) before it is adopted:
    /// readable defensively, no generated or hidden column anywhere, and no virtual table but
    /// the R-trees of its geometry columns. Throws `ReplicaChanges.Failure` naming the problem.
    public static func checkUntrusted(_ path: String) throws(ReplicaChanges.Failure) {
        try UntrustedFile.read(path, limits: .generous) { db, _ in
            for table in try UntrustedFile.tables(db).virtual where !(table.name.hasPrefix("rtree_") && table.sql.contains("USING RTREE")) {
                throw ReplicaChanges.Failure.invalid("virtual table \(table.name) is not a geometry column's R-tree")
            }
            _ = try ReplicaFile.info(db, path: path)
        }
    }
}

/// A GeoPackage someone handed in to be published, checked before GDAL opens it (GDAL's GPKG
/// driver loads SpatiaLite, whose virtual tables read other files: `VirtualText`, `VirtualShape`):
/// readable defensively, no virtual table but a geometry column's R-tree, no view, no generated
/// or hidden column (docs/portal.md, "Publishing").
public enum UntrustedGeoPackage {
    public static func check(_ path: String) throws(ReplicaChanges.Failure) {
        try UntrustedFile.read(path, limits: .generous) { db, _ in
            for table in try UntrustedFile.tables(db).virtual where !(table.name.hasPrefix("rtree_") && table.sql.contains("USING RTREE")) {
                throw ReplicaChanges.Failure.invalid("virtual table \(table.name) is not a geometry column's R-tree")
            }
            if let view = try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE type = 'view' LIMIT 1") {
                throw ReplicaChanges.Failure.invalid("view \(view): only tables are published")
            }
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'gpkg_contents' AND type = 'table'") == 1 else {
                throw ReplicaChanges.Failure.invalid("it has no gpkg_contents table: it is not a GeoPackage")
            }
        }
    }
}
