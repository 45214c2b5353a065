import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import OutpostClient
import OutpostServer
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// A device's copy of a preplanned area kept current by scheduled-update deltas, against a
/// live server (docs/map-areas.md, "Updating a copy"): deltas applied in order give the
/// refreshed package's rows; a copy behind a purged delta is downloaded whole, and says so.
@Suite struct ScheduledUpdateTests {
    static let demoMap = "de3000000000000000000000000000a1"

    /// Layer 0's features of a package file: GlobalID → name.
    static func cities(_ path: String) throws -> [String: String] { try ReplicaFileReading.names(path) }

    static func serverPackage(_ store: SpatiaLiteBackend, _ id: String) throws -> String {
        guard case .file(_, let path) = try #require(try store.portal.data(of: id)) else { throw ClientError.geodatabase("no file") }
        return path
    }

    @Test func deltasKeepACopyCurrentAndAPurgedOneMeansAWholeDownload() async throws {
        let clock = ManualClock(milliseconds: 1_795_467_600_000)
        let store = try makeDemoStore(label: "updates", clock: clock)
        let folder = TestFolders.make("updates-device")
        let app = Application(router: buildRouter(store: store), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let base = URL(string: "http://127.0.0.1:\(try #require(client.port))/arcgis")!
            let areas = MapAreaClient(base: base)
            let service = ServiceConnection(serviceURL: base.appendingPathComponent("rest/services/Demo/FeatureServer"))
            let (area, made) = try await areas.create(
                webMap: Self.demoMap, extent: Envelope(xmin: 5, ymin: 45, xmax: 20, ymax: 56), title: "Field", updatesKeptDays: 2)
            #expect(made.arrayValue?.allSatisfy { $0["state"] == "new" } == true, "\(made)")

            // The device downloads the area; a second device keeps an untouched copy.
            let packages = try await areas.download(area: area, to: URL(fileURLWithPath: folder))
            let demo = try #require(
                packages.first { try! store.portal.item(id: $0.id)?.properties["url"]?.stringValue?.hasSuffix("/Demo/FeatureServer") == true })
            let copy = (folder as NSString).appendingPathComponent(demo.fileName)
            let laggard = copy + ".laggard.gpkg"
            let editor = copy + ".editor.gpkg"
            try FileManager.default.copyItem(atPath: copy, toPath: laggard)
            try FileManager.default.copyItem(atPath: copy, toPath: editor)
            #expect(try await areas.checkForUpdates(package: demo.id, copy: copy) == .upToDate)
            #expect(try Self.cities(copy) == Self.cities(try Self.serverPackage(store, demo.id)))

            func edit(_ name: String) async throws {
                let answer = try await service.postForm(
                    service.url("0/applyEdits"),
                    [("adds", #"[{"attributes":{"name":"\#(name)"},"geometry":{"x":10,"y":50,"spatialReference":{"wkid":4326}}}]"#)])
                #expect(answer["addResults"]?[0]?["success"] == true, "\(answer)")
            }

            // Two refreshes with edits between: the device applies both deltas, in order.
            try await edit("Firsttown")
            _ = try await areas.refresh(area: area)
            try await edit("Secondtown")
            _ = try await areas.refresh(area: area)
            let plan = try await areas.checkForUpdates(package: demo.id, copy: copy)
            guard case .applyDeltas(let deltas) = plan else { return #expect(Bool(false), "\(plan)") }
            #expect(deltas.count == 2 && deltas[0].generation < deltas[1].generation && plan.deltaBytes > 0)
            let updated = try await areas.update(package: demo.id, copy: copy)
            #expect(updated.appliedDeltas == deltas.map(\.generation) && !updated.reopenRequired)
            let refreshed = try Self.cities(try Self.serverPackage(store, demo.id))
            #expect(try Self.cities(copy) == refreshed)
            #expect(refreshed.values.contains("Firsttown") && refreshed.values.contains("Secondtown"))
            #expect(try await areas.checkForUpdates(package: demo.id, copy: copy) == .upToDate)

            // Three days on (maxDeltaAge 2), another refresh purges both deltas: the current
            // copy still updates by the new delta, the laggard must take the package whole.
            clock.advance(milliseconds: 3 * 86_400_000)
            try await edit("Thirdtown")
            _ = try await areas.refresh(area: area)
            let current = try await areas.update(package: demo.id, copy: copy)
            #expect(current.appliedDeltas.count == 1 && !current.reopenRequired, "\(current)")
            let behind = try await areas.checkForUpdates(package: demo.id, copy: laggard)
            guard case .downloadWhole(.deltasPurged(let local, let purged)) = behind else { return #expect(Bool(false), "\(behind)") }
            #expect(local < purged && "\(behind)".contains("purged"))

            // Not over edits a copy has not sent: refused, the copy left as it was.
            let device = try Geodatabase.open(editor)
            _ = try device.add(LocalFeature(attributes: ["name": "Unsent"]), to: try device.featureTable(layerId: 0))
            device.close()
            let before = try Self.cities(editor)
            await #expect(throws: ClientError.self) { try await areas.update(package: demo.id, copy: editor) }
            #expect(try Self.cities(editor) == before)

            // The laggard is downloaded whole in its place: the refreshed package, reopen required.
            let whole = try await areas.update(package: demo.id, copy: laggard)
            #expect(whole.reopenRequired && whole.plan == behind)
            #expect(try Self.cities(laggard) == Self.cities(try Self.serverPackage(store, demo.id)))
            #expect(try await areas.checkForUpdates(package: demo.id, copy: laggard) == .upToDate)
        }
    }
}
