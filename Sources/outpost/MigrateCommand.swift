import ArgumentParser
import Foundation
import OutpostMigration
import OutpostObjectStorage
import OutpostPostgres
import OutpostSpatiaLite

/// `outpost migrate-to-postgres DATA_DIR postgres://…` (docs/postgres.md, "Moving a data folder").
struct MigrateToPostgres: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-to-postgres",
        abstract:
            "Move a data folder's services, features, deletes, replicas, users, portal items and tile sets into an empty PostgreSQL + PostGIS database; registered devices go on syncing. Serve it with `outpost serve --database URL --data DATA_DIR`: files stay in the folder."
    )

    @Argument(help: "The data folder.") var data: String
    @Argument(help: "The database, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (created empty beforehand).") var database: String
    @Option(
        name: .long,
        help:
            "Also put attachment and upload files in this S3-compatible bucket (serve with the same --object-store), http[s]://[KEY:SECRET@]HOST[:PORT]/BUCKET."
    )
    var objectStore: String?

    func run() throws {
        let location: PostgresLocation
        do { location = try PostgresLocation(database) } catch { throw ValidationError("\(error)") }
        guard FileManager.default.fileExists(atPath: (data as NSString).appendingPathComponent(SpatiaLiteBackend.databaseFileName)) else {
            throw ValidationError("\(data) is not a data folder (no \(SpatiaLiteBackend.databaseFileName))")
        }
        let store = try SpatiaLiteBackend(dataDirectory: data)
        let backend = try PostgresBackend(location, dataDirectory: data, objectStore: try bucket(objectStore, option: "--object-store"))
        let report = try SpatiaLiteToPostgres.migrate(store, to: backend)
        print(
            "moved \(report.services) services, \(report.features) features, \(report.attachments) attachments, \(report.tombstones) deletes and \(report.replicas) replicas into \(location.redactedDescription) (\(report.buckets) generation buckets)"
        )
        let records = report.records.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        if !records.isEmpty { print("moved \(records.joined(separator: ", ")); their files stay in \(data)") }
        if report.objects > 0 {
            print("put \(report.objects) attachment and upload files in \(objectStore.flatMap { try? S3Location($0).redactedDescription } ?? "")")
        }
        if report.locators + report.networks > 0 {
            print("built \(report.locators) locator(s) and \(report.networks) network(s) anew over the moved layers")
        }
        if report.versions > 0 {
            print("moved \(report.versions) versions, \(report.historyRows) kept row versions and \(report.versionRows) unposted version rows")
        }
        print(
            "serve it with: outpost serve --database \(location.redactedDescription) --data \(data)\(objectStore == nil ? "" : " --object-store URL")"
        )
    }
}

/// `outpost migrate [--dry-run]`: brings a data folder or database up to this version's
/// schema, or says what that would change (docs/operations.md, "Upgrades").
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply this version's schema migrations to a data folder or database; --dry-run lists them without applying.")
    @OptionGroup var location: StoreLocation
    @Flag(name: .long, help: "Only list the migrations that would run.") var dryRun = false

    func run() throws {
        if let database = location.database {
            let postgres: PostgresLocation
            do { postgres = try PostgresLocation(database) } catch { throw ValidationError("--database: \(error)") }
            let pool = PostgresPool(postgres, maximumConnections: 1)
            defer { pool.close() }
            let pending = try PostgresMigrations.pending(pool)
            report(pending.map { "\($0.version) \($0.name)" })
            if !dryRun && !pending.isEmpty { try PostgresMigrations.migrate(pool) }
            return
        }
        let pending = try SpatiaLiteBackend.pendingMigrations(dataDirectory: location.data)
        report(pending)
        if !dryRun && !pending.isEmpty { _ = try SpatiaLiteBackend(dataDirectory: location.data) }
    }

    private func report(_ pending: [String]) {
        if pending.isEmpty { return print("up to date: no migration to run") }
        print(dryRun ? "would apply \(pending.count) migrations:" : "applying \(pending.count) migrations:")
        for migration in pending { print("  \(migration)") }
    }
}
