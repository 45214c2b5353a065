import Foundation
import GRDB
import OutpostGeometry
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostSpatiaLite

/// What the store's connections are left holding after a query or a bulk load: no snapshot
/// pinned by a page cut short, the writer's temporary storage as it was.
@Suite struct StoreConnectionTests {
    /// A bulk load sorts its index rebuild through files (the store's in-memory temporary
    /// storage kept SQLite's sorter runs in memory: 480 MB for 5M GlobalIDs) and leaves the
    /// writer as it found it, also when the load fails.
    @Test func aBulkLoadLeavesTheWriterWithItsInMemoryTemporaryStorage() throws {
        let store = try makeTemporaryStore()
        try store.schema.createService(pointLayerService(name: "bulk"))
        let rows = (0..<100).map { FeatureRow(attributes: ["value": .int(Int64($0))], geometry: .point(Point(x: Double($0), y: 0))) }
        try store.edits.insert(rows, service: "bulk", layer: 0)
        try store.schema.createService(pointLayerService(name: "twice"))
        let twice = FeatureRow(attributes: ["GlobalID": "{8A7F2C1E-0B3D-4E5F-9A6B-7C8D9E0F1A2B}"], geometry: .point(Point(x: 1, y: 1)))
        #expect(throws: (any Error).self) { try store.edits.insert(rows + [twice, twice], service: "twice", layer: 0) }
        let memory = 2
        #expect(try store.write { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") } == memory)
    }

    /// A page cut short leaves its statement part-way; reset, it holds no snapshot, so the
    /// reader connection sees every later commit (a cached statement once kept it open).
    @Test func aPageCutShortPinsNoSnapshot() throws {
        let store = try makeTemporaryStore()
        try store.schema.createService(pointLayerService(name: "pinned"))
        try store.edits.insert(
            (0..<10).map { FeatureRow(attributes: ["value": .int(Int64($0))], geometry: .point(Point(x: Double($0), y: 0))) },
            service: "pinned", layer: 0)
        var short = LayerQuery()
        short.whereClause = "1=1"
        short.resultRecordCount = 1
        var count = LayerQuery()
        count.whereClause = "1=1"
        count.returnCountOnly = true
        for round in 1...3 {
            guard case .features(let page) = try store.features.query(short, service: "pinned", layer: 0) else {
                Issue.record("no page")
                return
            }
            #expect(page.exceededTransferLimit)
            try store.edits.insert([FeatureRow(attributes: ["value": 99], geometry: .point(Point(x: 0, y: 1)))], service: "pinned", layer: 0)
            guard case .count(let rows) = try store.features.query(count, service: "pinned", layer: 0) else {
                Issue.record("no count")
                return
            }
            #expect(rows == 10 + round)
        }
    }
}
