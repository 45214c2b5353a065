import ArgumentParser
import Foundation
import OutpostObjectStorage
import OutpostPostgres
import OutpostSpatiaLite
import OutpostStorage

/// Where an administration command finds the data: a data folder (the embedded default), or
/// a PostgreSQL + PostGIS database with `--database` (docs/postgres.md). Options left out are
/// taken as `serve` takes them, from `OUTPOST_DATA`, `OUTPOST_DATABASE` and
/// `OUTPOST_OBJECT_STORE` or the `OUTPOST_CONFIG` file, so a command run beside a server (in
/// its container, say) acts on that server's store (docs/configuration.md).
struct StoreLocation: ParsableArguments {
    @Option(name: .customLong("data"), help: "The data folder (default: as serve takes it, else ./outpost-data).")
    var dataOption: String?
    @Option(
        name: .long,
        help: "A PostgreSQL + PostGIS database instead of the data folder: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.")
    var database: String?
    @Option(
        name: .long,
        help: "With --database: attachments, uploads and result files in this S3-compatible bucket, http[s]://[KEY:SECRET@]HOST[:PORT]/BUCKET.")
    var objectStore: String?

    /// Where `serve` and these commands look without a setting.
    static let defaultData = "./outpost-data"

    var data: String { dataOption ?? Self.defaultData }

    /// Fills in what the command line left out from the environment and the config file.
    mutating func validate() throws {
        var layers = try LayeredSettings(configFile: nil)
        dataOption = try layers.string("data", dataOption, default: Self.defaultData)
        database = try layers.optionalString("database", database)
        objectStore = try layers.optionalString("object-store", objectStore)
    }

    /// The PostgreSQL backend when `--database` names one (migrated on opening), its files
    /// in the data folder.
    func postgres() throws -> PostgresBackend? {
        guard let database else {
            if objectStore != nil { throw ValidationError("--object-store goes with --database: a data folder keeps its own files.") }
            return nil
        }
        let location: PostgresLocation
        do { location = try PostgresLocation(database) } catch { throw ValidationError("--database: \(error)") }
        return try PostgresBackend(
            location, dataDirectory: data, objectStore: try bucket(objectStore, option: "--object-store"), maximumConnections: 2)
    }

    func users() throws -> any UserDirectory {
        if let backend = try postgres() { return backend.users }
        return try SpatiaLiteBackend(dataDirectory: data).users
    }
}

/// The S3-compatible bucket a `--object-store` URL names, or nil without one.
func bucket(_ url: String?, option: String) throws -> S3BlobStore? {
    guard let url else { return nil }
    do { return try S3Location(url).store } catch { throw ValidationError("\(option): \(error)") }
}

extension StoreLocation {
    /// Runs `body` on the store this location names (PostgreSQL when given, else the data
    /// folder's), closing it after; a missing service, locator or network is `missing`'s error.
    func withStore<T>(missing: @autoclosure () -> String, _ body: (any OutpostBackend) throws -> T) throws -> T {
        do {
            if let backend = try postgres() {
                defer { backend.close() }
                return try body(backend)
            }
            return try body(try SpatiaLiteBackend(dataDirectory: data))
        } catch StoreError.serviceNotFound {
            throw ValidationError(missing())
        }
    }
}
