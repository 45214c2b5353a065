import Foundation
import OutpostStorage
import OutpostSync
import OutpostTileFiles
import ServiceLifecycle
import Synchronization

/// The PostgreSQL + PostGIS backend (docs/postgres.md): every seam the server needs
/// (`OutpostBackend`), rows in the database; attachments, uploads and result files in a blob
/// store — the data folder's, which every process serving the database must then share, or
/// an object store, which leaves each process its own folder; portal item files and tile sets
/// in the data folder.
public final class PostgresBackend: OutpostBackend {
    public let pool: PostgresPool
    public let schema: PostgresSchema
    public let edits: PostgresEdits
    public let features: PostgresFeatures
    public let replicas: PostgresReplicaRegistry
    public let sync: PostgresSync
    public let conflicts: PostgresConflictLog
    public let users: PostgresUserDirectory
    public let oauth: PostgresOAuthGrants
    public let jobs: PostgresJobStore
    public let resultFiles: PostgresResultFiles
    public let maintenance: PostgresMaintenance
    public let versions: PostgresVersions
    public let uploads: PostgresUploadStore
    public let portal: PostgresPortal
    public let tiles: PostgresTileSets
    public let locators: PostgresLocators
    public let networks: PostgresNetworks
    /// This process's presence, which its unfinished jobs are tied to.
    public let presence: PostgresPresence
    public let clock: any WallClock
    public let directory: String
    /// Where attachments, uploads and result files are kept.
    public let blobs: BlobFiles

    /// Connects to `location` (a pool of `maximumConnections`) and migrates the database.
    /// `dataDirectory` holds the files; without one (tools that touch rows only, tests) a new
    /// folder under the system's temporary directory does. `objectStore` keeps attachments,
    /// uploads and result files there instead of in the data folder.
    public init(
        _ location: PostgresLocation, dataDirectory: String? = nil, objectStore: (any BlobStore)? = nil, maximumConnections: Int = 10,
        clock: any WallClock = SystemClock()
    ) throws {
        let directory =
            dataDirectory ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("outpost-postgres-\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        let blobs =
            objectStore.map { BlobFiles(store: $0, cacheDirectory: (directory as NSString).appendingPathComponent("cache")) } ?? .folder(directory)
        self.blobs = blobs
        pool = PostgresPool(location, maximumConnections: maximumConnections)
        try PostgresMigrations.migrate(pool)
        do { try pool.withConnection { connection in try GenerationTicks.checkTransactionIDs(on: connection) } } catch {
            pool.close()
            throw error
        }
        let held = PostgresCatalog(pool: pool)
        let counter = EditCounter()
        let temporary = (directory as NSString).appendingPathComponent("tmp")
        let uploadFolder = UploadFolder(blobs: blobs, temporaryDirectory: temporary)
        uploads = PostgresUploadStore(pool: pool, held: held, folder: uploadFolder, clock: clock)
        let files = AttachmentFiles(blobs: blobs, temporaryDirectory: temporary)
        schema = PostgresSchema(pool: pool, held: held, clock: clock, files: files, uploads: uploadFolder)
        edits = PostgresEdits(pool: pool, held: held, clock: clock, counter: counter, files: files, uploads: uploads)
        features = PostgresFeatures(pool: pool, held: held, files: files)
        replicas = PostgresReplicaRegistry(pool: pool, held: held, clock: clock)
        sync = PostgresSync(pool: pool, held: held, clock: clock, edits: edits)
        conflicts = PostgresConflictLog(pool: pool, held: held)
        users = PostgresUserDirectory(pool: pool, clock: clock)
        oauth = PostgresOAuthGrants(pool: pool, clock: clock)
        presence = PostgresPresence(location)
        jobs = PostgresJobStore(pool: pool, presence: presence)
        resultFiles = PostgresResultFiles(pool: pool, clock: clock)
        maintenance = PostgresMaintenance(pool: pool, held: held, replicas: replicas, directory: directory, blobs: blobs, clock: clock)
        versions = PostgresVersions(pool: pool, held: held, clock: clock)
        portal = PostgresPortal(pool: pool, files: ItemFolder(directory: (directory as NSString).appendingPathComponent("items")), clock: clock)
        tiles = PostgresTileSets(pool: pool, files: MBTilesFolder(directory: (directory as NSString).appendingPathComponent("tiles")), clock: clock)
        locators = PostgresLocators(pool: pool)
        networks = PostgresNetworks(pool: pool)
        self.clock = clock
    }

    public var temporaryDirectory: String { (directory as NSString).appendingPathComponent("tmp") }
    public var editsApplied: Int { edits.counter.value.load(ordering: .relaxed) }
    /// Nothing runs beside a server on this backend: PostgreSQL checkpoints itself, and the
    /// pool opens connections as requests need them.
    public var backgroundServices: [any Service] { [] }

    /// Runs `body` while holding a lock every process serving this database takes by the same
    /// `name` (a session advisory lock): processes starting together seed an empty database once.
    public func exclusively<T>(_ name: String, _ body: () throws -> T) throws -> T {
        try pool.withConnection { connection in
            try connection.query("SELECT pg_advisory_lock(hashtext(\(name)))")
            defer { _ = try? connection.query("SELECT pg_advisory_unlock(hashtext(\(name)))") }
            return try body()
        }
    }

    /// Runs `body` unless another process holds the lock of `name` (a session advisory lock
    /// tried, not waited for): then nil.
    public func unlessAnotherProcessIs<T>(_ name: String, _ body: () throws -> T) throws -> T? {
        try pool.withConnection { connection in
            guard try connection.query("SELECT pg_try_advisory_lock(hashtext(\(name)))").first?.bool(0) == true else { return nil }
            defer { _ = try? connection.query("SELECT pg_advisory_unlock(hashtext(\(name)))") }
            return try body()
        }
    }

    /// Closes the connections and lets go of this process's presence, as a process that stops.
    public func close() {
        presence.release()
        pool.close()
    }
}

/// Edits this process committed (metrics).
final class EditCounter: Sendable {
    let value = Atomic<Int>(0)
}
