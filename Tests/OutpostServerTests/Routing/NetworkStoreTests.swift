import Foundation
import OutpostRouting
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// Networks built from a line layer, kept and solved the same on both backends
/// (docs/routing.md, "Networks", "Stored form").
@Suite struct NetworkStoreTests {
    static func newStore(_ backend: String) throws -> any OutpostBackend {
        backend == "SpatiaLite" ? try SpatiaLiteBackend(dataDirectory: TestFolders.make("networks")) : try TestPostgres.makeBackend()
    }

    @Test(arguments: ["SpatiaLite", "PostgreSQL"])
    func aNetworkIsBuiltKeptRebuiltAndRemoved(_ backend: String) throws {
        try Self.check(try Self.newStore(backend))
    }

    static func check(_ store: some OutpostBackend) throws {
        let built = try StreetGrid.make(store)
        #expect(built.edgeCount == 24 && built.junctionCount == 16, "\(built)")
        #expect(built.refused.isEmpty)
        #expect(abs(built.extent[0] - 13.40) < 1e-9 && abs(built.extent[3] - 52.503) < 1e-9, "\(built.extent)")
        let kept = try #require(try store.networks.network(named: "streetroutes"), "names ignore case")
        #expect(kept == built)
        let graph = try RoadNetwork(decoding: try #require(try store.networks.graph(ofNetwork: "STREETROUTES")))
        #expect(graph.edgeCount == 24)
        #expect(graph.edgeDirections[0] == .forward, "Row 0's first block is FT")
        #expect(graph.edgeRestricted.filter { $0 }.count == 1)
        #expect(graph.edgeMinutes[9] < graph.edgeMinutes[0], "Row 3 at 100 km/h")

        // Building again replaces it; another kind's name or a service's is refused.
        let again = try NetworkBuilder.build(StreetGrid.definition("Streets", "StreetRoutes"), in: store)
        #expect(try store.networks.networks().map(\.name) == ["StreetRoutes"] && again.edgeCount == 24)
        #expect(throws: NetworkBuilder.Failure.nameTaken("Streets")) {
            try NetworkBuilder.build(StreetGrid.definition("Streets", "Streets"), in: store)
        }
        var unknown = StreetGrid.definition("Streets", "Other")
        unknown.fields.speed = "NOPE"
        #expect(throws: NetworkBuilder.Failure.unknownField("NOPE")) { try NetworkBuilder.build(unknown, in: store) }
        #expect(try store.networks.network(named: "Other") == nil, "a refused build keeps nothing")
        var textSpeed = StreetGrid.definition("Streets", "Other")
        textSpeed.fields.speed = "NAME"
        #expect(throws: NetworkBuilder.Failure.notANumberField("NAME")) { try NetworkBuilder.build(textSpeed, in: store) }
        _ = try store.schema.createService(pointLayerService(name: "Points"))
        #expect(throws: NetworkBuilder.Failure.notALineLayer) {
            try NetworkBuilder.build(NetworkDefinition(name: "Other", service: "Points", layer: 0, fields: .init()), in: store)
        }
        // A service may not take a network's name, a folder of its name, or its folder.
        for name in ["streetroutes", "StreetRoutes/Inner"] {
            #expect(throws: StoreError.serviceExists("StreetRoutes")) { try store.schema.createService(pointLayerService(name: name)) }
        }

        try store.networks.deleteNetwork(named: "streetRoutes")
        #expect(try store.networks.networks().isEmpty)
        #expect(throws: StoreError.self) { try store.networks.deleteNetwork(named: "StreetRoutes") }
    }
}
