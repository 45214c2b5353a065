import Foundation
import Logging
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The refresh a test target's moved clock asks for (docs/geocoding.md, "Refresh") waits for a
/// pass already running, rather than being skipped for it.
@Suite struct TaskRefresherTests {
    @Test func aMovedClocksPassWaitsForTheRunningOneAndIsNeverSkipped() async throws {
        let store = try makeTemporaryStore()
        _ = try AddressTown.makeLocator(store)
        let point = AddressTown.location(street: 0, number: 11)
        let add = EditFeature(
            attributes: ["NUM": "11", "STREET": "Hill Street", "TOWN": "Springfield", "POSTCODE": "90210"],
            geometry: ["x": .double(point.x), "y": .double(point.y), "spatialReference": ["wkid": 4326]])
        _ = try store.edits.applyEdits(service: "Town", edits: [LayerEdits(layerId: 0, adds: [add])], options: EditOptions())
        let tasks = TaskRefresher(store: store, interval: .seconds(3600), logger: Logger(label: "test"))

        // A periodic pass holds the gate; the moved clock's pass comes once it is given back.
        let running = try tasks.passes.enter()
        let waiting = Task { await tasks.tickWhenFree() }
        try await Task.sleep(for: .milliseconds(200))
        #expect(try store.locators.locator(named: "TownAddresses")?.entryCount == 31, "nothing ran while the gate was held")
        running.release()
        #expect(await waiting.value == ["TownAddresses"])
        #expect(try store.locators.locator(named: "TownAddresses")?.entryCount == 32)

        // It waits no longer than its patience.
        let held = try tasks.passes.enter()
        #expect(await tasks.tickWhenFree(patience: .milliseconds(100)) == [])
        held.release()
    }
}
