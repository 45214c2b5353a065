import Foundation
import GRDB
import OutpostGeometry
import OutpostSync
import OutpostWire
import Synchronization

/// The feature store: one SpatiaLite database (WAL) per data folder holding the catalog of
/// services and layers and one table per layer.
///
/// Reads run concurrently on the pool's readers; writes are serialized by SQLite. The
/// catalog is cached in memory and replaced whole after every schema change, so request
/// handlers read a consistent snapshot without touching the database.
public final class FeatureStore: Sendable {
    public static let databaseFileName = "outpost.sqlite"

    public let path: String
    /// Every time the store stamps (generations, replicas, jobs, tokens, uploads, conflicts).
    public let clock: any WallClock
    /// The data folder holding the database, attachment files and uploads.
    public let directory: String
    let pool: DatabasePool
    private let checkpointer: WALCheckpointer
    private let catalogCache: Mutex<Catalog>
    /// Feature and attachment edits committed since the store was opened (metrics).
    public let editsApplied = Atomic<Int>(0)
    /// Replica names being created (service key, name): see `reserveReplicaName`.
    let replicaNameReservations = Mutex<[(service: String, name: String)]>([])

    /// Opens (creating if needed) the store at `path`, running pending migrations.
    public init(path: String, clock: any WallClock = SystemClock()) throws {
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
            try db.execute(sql: "PRAGMA synchronous = FULL; PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY")
            checkpointer.install(on: db)
            for function in Self.statisticFunctions { db.add(function: function) }
        }
        self.checkpointer = checkpointer
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
        catalogCache = Mutex(try pool.read(Catalog.load))
    }

    deinit {
        checkpointer.close()
    }

    /// Opens the store inside a data folder, creating the folder.
    public convenience init(dataDirectory: String, clock: any WallClock = SystemClock()) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try self.init(path: (dataDirectory as NSString).appendingPathComponent(Self.databaseFileName), clock: clock)
    }

    /// Where request bodies are spooled: inside the data folder, so a finished upload is
    /// moved into place by a rename, never copied.
    public var temporaryDirectory: String { (directory as NSString).appendingPathComponent("tmp") }
    public var attachmentsDirectory: String { (directory as NSString).appendingPathComponent("attachments") }
    public var uploadsDirectory: String { (directory as NSString).appendingPathComponent("uploads") }

    /// A consistent snapshot of all services.
    public var catalog: Catalog { catalogCache.withLock { $0 } }

    func reloadCatalog() throws {
        let fresh = try pool.read(Catalog.load)
        catalogCache.withLock { $0 = fresh }
    }

    public func service(named name: String) throws(StoreError) -> StoredService {
        guard let service = catalog.service(named: name) else { throw .serviceNotFound(name) }
        return service
    }

    public func layer(service name: String, id: Int) throws(StoreError) -> StoredLayer {
        let service = try service(named: name)
        guard let layer = service.layers.first(where: { $0.definition.id == id }) else {
            throw .layerNotFound(service: name, layer: id)
        }
        return layer
    }

    public var libraryVersions: String { SpatiaLite.versions }

    /// Runs `body` in a read transaction (tests and tools).
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T { try pool.read(body) }

    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T { try pool.write(body) }
}
