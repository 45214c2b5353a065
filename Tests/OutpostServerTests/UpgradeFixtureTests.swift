import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostSpatiaLite
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// Data folders as each earlier release left them (`Tests/fixtures/upgrades`, made by
/// `Tests/fixtures/upgrades/make.sh`). Each was written by the build just before a migration
/// was added: its demo seeded, an online edit, and from v5, when replicas arrived, a device
/// registered and synced. This build opens each one and applies the later migrations in
/// order. Every feature is kept, and the device registered before the upgrade syncs on: its
/// upload lands and it downloads an edit made after the upgrade (docs/operations.md,
/// "Upgrades").
@Suite struct UpgradeFixtureTests {
    struct Fixture: Sendable, CustomTestStringConvertible {
        var version: Int
        var migrations: [String]
        var cities: Int
        /// The edit made online before the upgrade (none in v1, which had no applyEdits).
        var onlineName: String?
        var replica: String?
        var serverGen: Int64?
        var testDescription: String { "v\(version)" }
    }

    static let folder = TestFolders.repository + "/Tests/fixtures/upgrades"

    static let fixtures: [Fixture] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".json") }.compactMap { name -> Fixture? in
            guard let bytes = FileManager.default.contents(atPath: folder + "/" + name),
                let json = try? JSONParser.parse(String(decoding: bytes, as: UTF8.self)),
                let version = json["version"]?.int64Value, let cities = json["cities"]?.int64Value
            else { return nil }
            return Fixture(
                version: Int(version), migrations: json["migrations"]?.arrayValue?.compactMap(\.stringValue) ?? [], cities: Int(cities),
                onlineName: json["onlineName"]?.stringValue, replica: json["replica"]?.stringValue, serverGen: json["serverGen"]?.int64Value)
        }.sorted { $0.version < $1.version }
    }()

    @Test func thereIsAFixtureForEveryEarlierMigration() {
        // Migrations are named `vN-…`; every N but the newest has a fixture.
        let versions = Set(SpatiaLiteBackend.knownMigrations.compactMap { Int($0.dropFirst().prefix { $0.isNumber }) }).sorted()
        #expect(Self.fixtures.map(\.version) == Array(versions.dropLast()))
    }

    /// The fixture's database, unpacked into a new data folder.
    static func unpack(_ fixture: Fixture) async throws -> String {
        let data = TestFolders.make("upgrade-v\(fixture.version)")
        let unpacked = try await ExternalTool.run("/usr/bin/xz", ["--decompress", "--stdout", "\(folder)/v\(fixture.version).sqlite.xz"])
        try #require(unpacked.exitCode == 0)
        try unpacked.output.write(to: URL(fileURLWithPath: data + "/" + SpatiaLiteBackend.databaseFileName))
        return data
    }

    @Test(arguments: fixtures)
    func aFolderAnEarlierReleaseLeftOpensKeepsItsDataAndItsDeviceSyncsOn(_ fixture: Fixture) async throws {
        let data = try await Self.unpack(fixture)
        let later = SpatiaLiteBackend.knownMigrations.filter { !fixture.migrations.contains($0) }
        #expect(!later.isEmpty && SpatiaLiteBackend.knownMigrations.starts(with: fixture.migrations))
        #expect(try SpatiaLiteBackend.pendingMigrations(dataDirectory: data) == later)
        let store = try SpatiaLiteBackend(dataDirectory: data)
        #expect(try SpatiaLiteBackend.pendingMigrations(dataDirectory: data) == [])
        // A folder that held the demo is never seeded again, whatever is deleted from it.
        #expect(try store.maintenance.isSet(.demoSeeded))
        try await Application(router: buildRouter(store: store)).test(.router) { client in
            let layer = "\(serviceURL)/0"
            let count = try await get(client, "\(layer)/query?f=json&where=1%3D1&returnCountOnly=true")
            #expect(count["count"]?.int64Value == Int64(fixture.cities))
            if let name = fixture.onlineName {
                let clause = "name = '\(name)'".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let online = try await get(client, "\(layer)/query?f=json&where=\(clause)&returnCountOnly=true")
                #expect(online["count"]?.int64Value == 1, "the edit made before the upgrade")
            }

            let after = #"[{"attributes":{"name":"online after the upgrade"},"geometry":{"x":9.19,"y":45.46}}]"#
            let added = try await post(client, "\(layer)/applyEdits", [("f", "json"), ("adds", after)])
            #expect(added["addResults"]?[0]?["success"] == .bool(true))
            guard let replica = fixture.replica, let generation = fixture.serverGen else { return }
            var device = DeviceReplica(id: replica, layer: 0, generation: generation)
            let answer = try await device.sync(
                client,
                edits:
                    #"{"adds":[{"attributes":{"GlobalID":"{5C0F1A2B-0000-4000-8000-00000000000\#(fixture.version % 10)}","name":"device after the upgrade"},"geometry":{"x":8.55,"y":47.37}}]}"#
            )
            #expect(answer["error"] == nil, "\(answer)")
            #expect(answer["edits"]?[0]?["addResults"]?[0]?["success"] == .bool(true))
            let names = device.features.values.compactMap { $0["name"]?.stringValue }
            #expect(names.contains("online after the upgrade"), "the device downloads what was edited after the upgrade")
            #expect(!names.contains { $0 == fixture.onlineName }, "and nothing it had before")
        }
    }
}
