import OutpostWire
import Testing

@testable import OutpostServer

/// A gate's places (docs/geocoding.md, "Offline"): a permit for work that outlives its handler
/// (a locator file streamed to a client) holds its place until released or dropped, once.
@Suite struct BusyGateTests {
    @Test func aPermitHoldsItsPlaceUntilReleasedOrDropped() throws {
        let gate = BusyGate(limit: 2, busyMessage: "busy")
        let first = try gate.enter()
        var second: BusyGate.Permit? = try gate.enter()
        #expect(throws: ArcGISError.self) { _ = try gate.enter() }
        #expect(second != nil)
        second = nil  // a response dropped unsent
        let third = try gate.enter()
        #expect(throws: ArcGISError.self) { _ = try gate.enter() }
        first.release()
        first.release()  // given back once
        let fourth = try gate.enter()
        #expect(throws: ArcGISError.self) { _ = try gate.enter() }
        third.release()
        fourth.release()
        _ = try [gate.enter(), gate.enter()]
    }
}
