import Foundation
import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire
import ServiceLifecycle

/// The embedded SpatiaLite backend (`OutpostBackend`): one repository per concern over one
/// database (`StoreDatabase`). It holds them and the data folder's paths; the SQL is theirs.
public final class SpatiaLiteBackend: OutpostBackend, Sendable {
    public static let databaseFileName = StoreDatabase.fileName

    public let database: StoreDatabase
    public let schema: SpatiaLiteSchema
    public let features: SpatiaLiteFeatures
    public let edits: SpatiaLiteEdits
    public let sync: SpatiaLiteSync
    public let versions: SpatiaLiteVersions
    public let users: SpatiaLiteUserDirectory
    public let oauth: SpatiaLiteOAuthGrants
    public let uploads: SpatiaLiteUploadStore
    public let jobs: SpatiaLiteJobStore
    public let replicas: SpatiaLiteReplicaRegistry
    public let conflicts: SpatiaLiteConflictLog
    public let resultFiles: SpatiaLiteResultFiles
    public let maintenance: SpatiaLiteMaintenance
    public let portal: SpatiaLitePortal
    public let tiles: SpatiaLiteTileSets
    public let locators: SpatiaLiteLocators
    public let networks: SpatiaLiteNetworks

    /// Opens (creating if needed) the store at `path`, running pending migrations.
    public init(path: String, clock: any WallClock = SystemClock()) throws {
        let database = try StoreDatabase(path: path, clock: clock)
        self.database = database
        schema = SpatiaLiteSchema(database: database)
        features = SpatiaLiteFeatures(database: database)
        edits = SpatiaLiteEdits(database: database)
        sync = SpatiaLiteSync(database: database)
        versions = SpatiaLiteVersions(database: database)
        users = SpatiaLiteUserDirectory(database: database)
        oauth = SpatiaLiteOAuthGrants(database: database)
        uploads = SpatiaLiteUploadStore(database: database)
        jobs = SpatiaLiteJobStore(database: database)
        replicas = SpatiaLiteReplicaRegistry(database: database)
        conflicts = SpatiaLiteConflictLog(database: database)
        resultFiles = SpatiaLiteResultFiles(database: database)
        maintenance = SpatiaLiteMaintenance(database: database)
        portal = SpatiaLitePortal(database: database)
        tiles = SpatiaLiteTileSets(database: database)
        locators = SpatiaLiteLocators(database: database)
        networks = SpatiaLiteNetworks(database: database)
    }

    /// Opens the store inside a data folder, creating the folder.
    public convenience init(dataDirectory: String, clock: any WallClock = SystemClock()) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try self.init(path: (dataDirectory as NSString).appendingPathComponent(Self.databaseFileName), clock: clock)
    }

    var pool: DatabasePool { database.pool }
    public var path: String { database.path }
    public var directory: String { database.directory }
    public var clock: any WallClock { database.clock }
    public var backgroundServices: [any Service] { [database.checkpointer] }
    /// Feature and attachment edits committed since the store was opened (metrics).
    public var editsApplied: Int { database.editsApplied.load(ordering: .relaxed) }

    /// Where request bodies are spooled: inside the data folder, so a finished upload is
    /// moved into place by a rename, never copied.
    public var temporaryDirectory: String { database.temporaryDirectory }
    public var attachmentsDirectory: String { database.attachmentsDirectory }

    /// Files in the data folder: one server process per folder.
    public var blobs: BlobFiles { .folder(directory) }
    public func unlessAnotherProcessIs<T>(_ name: String, _ body: () throws -> T) throws -> T? { try body() }

    public var libraryVersions: String { SpatiaLite.versions }

    /// Runs `body` in a read transaction (tests and tools).
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T { try pool.read(body) }

    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws -> T { try pool.write(body) }
}
