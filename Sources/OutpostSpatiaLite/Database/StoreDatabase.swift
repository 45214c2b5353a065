import Foundation
import GRDB
import OutpostStorage
import OutpostSync
import OutpostWire
import Synchronization

/// The embedded backend's shared state: one SpatiaLite database (WAL) per data folder, its
/// WAL checkpointer, the catalog cache and the clock. Every repository of the
/// SpatiaLite backend works through it.
///
/// Reads run concurrently on the pool's readers; writes are serialized by SQLite. The
/// catalog is cached in memory and replaced whole after every schema change, so request
/// handlers read a consistent snapshot without touching the database.
public final class StoreDatabase: Sendable {
    public static let fileName = "outpost.sqlite"

    public let path: String
    /// The data folder holding the database, attachment files and uploads.
    public let directory: String
    /// Every time the store stamps (generations, replicas, jobs, tokens, uploads, conflicts).
    public let clock: any WallClock
    let pool: DatabasePool
    /// Copies the WAL into the database: a `Service` to run beside a server.
    public let checkpointer: WALCheckpointer
    private let catalogCache: Mutex<Catalog>
    /// Feature and attachment edits committed since the store was opened (metrics).
    let editsApplied = Atomic<Int>(0)
    /// Replica names being created (service key, name): see `reserveReplicaName`.
    let replicaNameReservations = Mutex<[(service: String, name: String)]>([])

    /// Opens (creating if needed) the database at `path`, running pending migrations.
    init(path: String, clock: any WallClock) throws {
        self.path = path
        self.clock = clock
        directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(10)
        configuration.maximumReaderCount = 8
        let checkpointer = WALCheckpointer(path: path)
        configuration.prepareDatabase { db in
            try SpatiaLite.attach(to: db.sqliteConnection!)
            // Reads of the first 256 MiB through a mapping, not a read(2) and a copy per page
            // missed in the cache: an envelope query of 1,000 random rows spent a fifth of its
            // time in the kernel (docs/performance.md). Mapped pages are the file's, shared and
            // reclaimable, but count in the process's resident size.
            try db.execute(sql: "PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY; PRAGMA mmap_size = 268435456")
            checkpointer.install(on: db)
            for function in SpatiaLiteBackend.statisticFunctions { db.add(function: function) }
        }
        self.checkpointer = checkpointer
        pool = try DatabasePool(path: path, configuration: configuration)
        // GRDB turns WAL on after `prepareDatabase` and sets `synchronous = NORMAL` with it, under
        // which a commit is not flushed and a power loss can take acknowledged edits with it.
        // FULL flushes the WAL at every commit (test_durability.py watches the flushes).
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        // A folder a newer Outpost wrote is left as it is: this version cannot know its schema.
        let unknown = try pool.read { db in try SpatiaLiteBackend.unknownMigrations(db) }
        guard unknown.isEmpty else {
            throw StoreError.invalidSchema(
                "\(path) was written by a newer Outpost (migrations \(unknown.joined(separator: ", "))); run that version or newer")
        }
        try SpatiaLiteBackend.migrator.migrate(pool)
        catalogCache = Mutex(try pool.read(Catalog.load))
    }

    /// A consistent snapshot of all services.
    var catalog: Catalog { catalogCache.withLock { $0 } }

    func reloadCatalog() throws {
        let fresh = try pool.read(Catalog.load)
        catalogCache.withLock { $0 = fresh }
    }

    var temporaryDirectory: String { (directory as NSString).appendingPathComponent("tmp") }
    var attachmentsDirectory: String { (directory as NSString).appendingPathComponent("attachments") }
}

/// A repository of the SpatiaLite backend: one concern's SQL over the shared database.
public protocol StoreRepository: Sendable {
    var database: StoreDatabase { get }
}

extension StoreRepository {
    var pool: DatabasePool { database.pool }
    var clock: any WallClock { database.clock }
    var directory: String { database.directory }

    /// A consistent snapshot of all services: the one held in memory, which every schema change
    /// of this process (the only one writing the file) replaces; it cannot fail.
    public func catalog() -> Catalog { database.catalog }

    func service(named name: String) throws(StoreError) -> StoredService { try catalog().existingService(named: name) }

    func layer(service name: String, id: Int) throws(StoreError) -> StoredLayer { try catalog().existingLayer(service: name, id: id) }
}
