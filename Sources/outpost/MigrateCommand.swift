import ArgumentParser
import Foundation
import OutpostMigration
import OutpostPostgres
import OutpostStore

/// `outpost migrate-to-postgres DATA_DIR postgres://…` (docs/postgres.md, "Moving a data folder").
struct MigrateToPostgres: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-to-postgres",
        abstract:
            "Move a data folder's services, features, deletes and replicas into an empty PostgreSQL + PostGIS database; registered devices go on syncing."
    )

    @Argument(help: "The data folder.") var data: String
    @Argument(help: "The database, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (created empty beforehand).") var database: String

    func run() throws {
        let location: PostgresLocation
        do { location = try PostgresLocation(database) } catch { throw ValidationError("\(error)") }
        guard FileManager.default.fileExists(atPath: (data as NSString).appendingPathComponent(FeatureStore.databaseFileName)) else {
            throw ValidationError("\(data) is not a data folder (no \(FeatureStore.databaseFileName))")
        }
        let store = try FeatureStore(dataDirectory: data)
        let backend = try PostgresBackend(location)
        let report = try SpatiaLiteToPostgres.migrate(store, to: backend)
        print(
            "moved \(report.services) services, \(report.features) features, \(report.tombstones) deletes and \(report.replicas) replicas into \(location.redactedDescription) (\(report.buckets) generation buckets)"
        )
        for skipped in report.skipped { print("not moved yet: \(skipped)") }
    }
}
