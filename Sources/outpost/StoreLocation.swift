import ArgumentParser
import OutpostPostgres
import OutpostStorage
import OutpostStore

/// Where an administration command finds the data: a data folder (the embedded default), or
/// a PostgreSQL + PostGIS database with `--database` (docs/postgres.md).
struct StoreLocation: ParsableArguments {
    @Option(name: .long, help: "The data folder.") var data = "./outpost-data"
    @Option(
        name: .long,
        help: "A PostgreSQL + PostGIS database instead of the data folder: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.")
    var database: String?

    /// The PostgreSQL backend when `--database` names one (migrated on opening), its files
    /// in the data folder.
    func postgres() throws -> PostgresBackend? {
        guard let database else { return nil }
        let location: PostgresLocation
        do { location = try PostgresLocation(database) } catch { throw ValidationError("--database: \(error)") }
        return try PostgresBackend(location, dataDirectory: data, maximumConnections: 2)
    }

    func users() throws -> any UserDirectory {
        if let backend = try postgres() { return backend.users }
        return try FeatureStore(dataDirectory: data).users
    }
}
