import Foundation
import Testing

@testable import OutpostRouting

/// The stored form (docs/routing.md, "Stored form").
@Suite struct RoadNetworkBinaryTests {
    @Test func aNetworkRoundTrips() throws {
        var changes: [Int64: TestNetworks.Change] = [1: TestNetworks.oneWay(.backward), 2: TestNetworks.restricted]
        changes[3] = {
            var line = $0
            line.name = "Straße ü"
            return line
        }
        let network = TestNetworks.grid(changes)
        #expect(try RoadNetwork(decoding: network.encoded()) == network)
        var costed = RoadNetworkBuilder(withCost: true)
        costed.add(NetworkSourceLine(id: 9, vertices: [.init(x: 0, y: 0), .init(x: 1, y: 1)], cost: 4.5))
        #expect(try RoadNetwork(decoding: costed.network.encoded()) == costed.network)
    }

    @Test func truncatedOrAlteredBytesAreRefused() throws {
        let bytes = TestNetworks.grid().encoded()
        for length in [0, 3, 24, bytes.count / 2, bytes.count - 1] {
            #expect(throws: RoadNetwork.DecodingError.self) { try RoadNetwork(decoding: bytes.prefix(length)) }
        }
        var badVersion = bytes
        badVersion[0] = 9
        #expect(throws: RoadNetwork.DecodingError.badVersion(9)) { try RoadNetwork(decoding: badVersion) }
        // A huge junction count is refused before anything is made of it.
        var huge = bytes
        huge.replaceSubrange(4..<8, with: [0xff, 0xff, 0xff, 0x7f])
        #expect(throws: RoadNetwork.DecodingError.truncated) { try RoadNetwork(decoding: huge) }
    }

    /// A coordinate no builder keeps (NaN, 1e300) is refused: the edge locator's grid makes
    /// cell numbers of them (found by the attack of offline maps' network files).
    @Test func aCoordinateOutsideWebMercatorsSquareIsRefused() throws {
        let network = TestNetworks.grid()
        let bytes = network.encoded()
        // The header's six numbers, then the junctions' x and y, then each edge's length and minutes.
        let firstVertexX = 24 + network.junctionCount * 16 + network.edgeCount * 16
        for value in [Double.nan, 1e300, -Double.infinity] {
            var altered = bytes
            withUnsafeBytes(of: value.bitPattern.littleEndian) { altered.replaceSubrange(firstVertexX..<firstVertexX + 8, with: $0) }
            #expect(throws: RoadNetwork.DecodingError.self, "\(value)") { try RoadNetwork(decoding: altered) }
        }
        #expect(try RoadNetwork(decoding: bytes) == network)
    }
}
