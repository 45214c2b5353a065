import OutpostWire
import Testing

@testable import OutpostSync

/// SetupMapArea run again (docs/map-areas.md, "Setting an area up again"): which packages are
/// kept, deleted and made, and the plan a package item's properties give back.
@Suite struct PackageReuseTests {
    static let demo = PackagePlan.features(
        FeaturePackagePlan(
            serviceURL: "https://h/arcgis/rest/services/Demo/FeatureServer", layers: [0, 2], returnAttachments: true,
            attachmentsSyncDirection: "bidirectional", layerQueries: [2: ["queryOption": "useFilter", "where": "height_m > 5"]],
            maxDeltaAge: 5))
    static let basemap = PackagePlan.tiles(
        TilePackagePlan(serviceURL: "https://h/arcgis/rest/services/DemoBasemap/MapServer", kind: .raster, levels: nil))

    static func changed(_ plan: PackagePlan, _ change: (inout FeaturePackagePlan) -> Void) -> PackagePlan {
        guard case .features(var features) = plan else { return plan }
        change(&features)
        return .features(features)
    }

    @Test func aPackageReadsBackAsThePlanItWasMadeWith() {
        #expect(PackagePlan(packageType: "GeoPackage", properties: .object(Self.demo.properties)) == Self.demo)
        #expect(PackagePlan(packageType: "Compact Tile Package", properties: .object(Self.basemap.properties)) == Self.basemap)
        let vector = PackagePlan.tiles(TilePackagePlan(serviceURL: "https://h/x/VectorTileServer", kind: .vector, levels: "0,1"))
        #expect(PackagePlan(packageType: "MBTiles", properties: .object(vector.properties)) == vector)
        #expect(PackagePlan(packageType: "Map Area", properties: .object(Self.demo.properties)) == nil)
        #expect(PackagePlan(packageType: "GeoPackage", properties: ["layers": [0]]) == nil, "no url")
    }

    /// Each row: what one option changed makes of the package.
    static let rows: [(String, PackagePlan, Bool)] = [
        ("the same plan", demo, true),
        ("other layers", changed(demo) { $0.layers = [0] }, false),
        ("another query", changed(demo) { $0.layerQueries = [:] }, false),
        ("no attachments", changed(demo) { $0.returnAttachments = false }, false),
        ("attachments one way", changed(demo) { $0.attachmentsSyncDirection = "upload" }, false),
        ("no deltas", changed(demo) { $0.maxDeltaAge = nil }, false),
        ("another delta age", changed(demo) { $0.maxDeltaAge = 7 }, false),
    ]

    @Test(arguments: rows.indices) func aPackageIsKeptOnlyWhenEveryOptionIsTheSame(_ row: Int) {
        let (name, wanted, kept) = Self.rows[row]
        let decision = PackageReuse.decide(existing: [.init(itemId: "p1", plan: Self.demo)], wanted: [wanted])
        #expect(decision.wanted.map(\.keep) == [kept ? "p1" : nil], "\(name)")
        #expect(decision.delete == (kept ? [] : ["p1"]), "\(name)")
    }

    @Test func keptDeletedAndMadeTogether() {
        let levels = PackagePlan.tiles(
            TilePackagePlan(serviceURL: "https://h/arcgis/rest/services/DemoBasemap/MapServer", kind: .raster, levels: "0,1"))
        let parcels = PackagePlan.features(
            FeaturePackagePlan(
                serviceURL: "https://h/arcgis/rest/services/Parcels/FeatureServer", layers: [0], returnAttachments: false,
                attachmentsSyncDirection: "none", layerQueries: [:], maxDeltaAge: nil))
        let decision = PackageReuse.decide(
            existing: [.init(itemId: "d", plan: Self.demo), .init(itemId: "b", plan: Self.basemap), .init(itemId: "x", plan: nil)],
            wanted: [Self.demo, levels, parcels])
        #expect(decision.wanted.map(\.keep) == ["d", nil, nil])
        #expect(decision.delete == ["b", "x"], "the basemap at other levels, and a package whose plan is unknown")
    }

    @Test func oneExistingPackageServesOneWantedPlan() {
        let decision = PackageReuse.decide(existing: [.init(itemId: "d", plan: Self.demo)], wanted: [Self.demo, Self.demo])
        #expect(decision.wanted.map(\.keep) == ["d", nil])
    }
}
