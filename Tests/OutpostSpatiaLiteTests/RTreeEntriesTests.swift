import Foundation
import GRDB
import OutpostWire
import Testing

@testable import OutpostSQLite

/// `RTreeEntries` packs in memory up to its limit and past it from a scratch file through
/// SQLite's external sort: both give trees SQLite's own check accepts and that answer every
/// box as a scan of the entries would.
@Suite struct RTreeEntriesTests {
    /// Random boxes and points, some sharing a centre, some with empty envelopes (skipped).
    static func envelopes(_ count: Int, seed: UInt64) -> [Envelope] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { n in
            if n % 97 == 0 { return .empty }
            let x = Double(random.next() % 36_000) / 100 - 180
            let y = Double(random.next() % 18_000) / 100 - 90
            let size = n % 3 == 0 ? 0 : Double(random.next() % 500) / 100
            return Envelope(xmin: x, ymin: y, xmax: x + size, ymax: y + size)
        }
    }

    /// Loads the envelopes (ids 1, 8, 15, …) into a fresh R*Tree; the tree's check, its rowid
    /// count and its answers to `boxes`.
    static func load(
        _ envelopes: [Envelope], memoryLimit: Int, boxes: [Envelope], directory: String
    ) throws -> (spilled: Bool, check: String?, rowids: Int, everything: Int, leafArea: Double, answers: [[Int64]]) {
        var entries = RTreeEntries(scratchDirectory: directory, memoryLimit: memoryLimit)
        for (n, envelope) in envelopes.enumerated() { try entries.append(id: Int64(n * 7 + 1), envelope: envelope) }
        let spilled = entries.isSpilled
        let queue = try DatabaseQueue()
        return try queue.write { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE t USING rtree(id, minx, maxx, miny, maxy)")
            try entries.load(into: "t", db: db)
            let answers = try boxes.map { box in
                try Int64.fetchAll(
                    db, sql: "SELECT id FROM t WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ? ORDER BY id",
                    arguments: [box.xmax, box.xmin, box.ymax, box.ymin])
            }
            return (
                spilled, try String.fetchOne(db, sql: "SELECT rtreecheck('t')"), try Int.fetchOne(db, sql: "SELECT count(*) FROM t_rowid") ?? 0,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM t WHERE minx <= 180 AND maxx >= -180 AND miny <= 90 AND maxy >= -90") ?? 0,
                try Data.fetchAll(db, sql: "SELECT data FROM t_node WHERE nodeno IN (SELECT nodeno FROM t_rowid)").reduce(0) { area, node in
                    let extent = RTreeBulkLoader.extent(ofNode: [UInt8](node))
                    return area + (extent.xmax - extent.xmin) * (extent.ymax - extent.ymin)
                },
                answers
            )
        }
    }

    static let boxes = [
        Envelope(xmin: -10, ymin: -10, xmax: 10, ymax: 10), Envelope(xmin: 100, ymin: 40, xmax: 101, ymax: 41),
        Envelope(xmin: 30, ymin: -60, xmax: 32, ymax: 60), Envelope(xmin: 0, ymin: 0, xmax: 0, ymax: 0),
    ]

    /// What a scan answers: the entries whose float bounds (rounded outwards) meet the box.
    static func scan(_ envelopes: [Envelope], _ box: Envelope) -> [Int64] {
        envelopes.enumerated().compactMap { n, envelope in
            guard !envelope.isEmpty else { return nil }
            let entry = RTreeBulkLoader.Entry(id: Int64(n * 7 + 1), envelope: envelope)
            let meets =
                Double(entry.minX) <= box.xmax && Double(entry.maxX) >= box.xmin && Double(entry.minY) <= box.ymax && Double(entry.maxY) >= box.ymin
            return meets ? entry.id : nil
        }
    }

    @Test(arguments: [20_000, 5_001, 170])
    func spilledEntriesMakeATreeThatAnswersAsHeldOnes(count: Int) throws {
        let directory = NSTemporaryDirectory() + "rtree-entries-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let envelopes = Self.envelopes(count, seed: UInt64(count))
        let spilled = try Self.load(envelopes, memoryLimit: 100, boxes: Self.boxes, directory: directory)
        let held = try Self.load(envelopes, memoryLimit: RTreeEntries.defaultMemoryLimit, boxes: Self.boxes, directory: directory)
        #expect(spilled.spilled && !held.spilled)
        #expect(spilled.check == "ok" && held.check == "ok")
        let loaded = envelopes.filter { !$0.isEmpty }.count
        #expect(spilled.rowids == loaded && held.rowids == loaded)
        #expect(spilled.everything == loaded && held.everything == loaded, "a box over the world finds every entry")
        #expect(spilled.answers == Self.boxes.map { Self.scan(envelopes, $0) })
        #expect(spilled.answers == held.answers)
        // Packed as STR, not merely valid: the leaves cover about the area the in-memory packing's do.
        #expect(spilled.leafArea <= held.leafArea * 1.25, "leaf area \(spilled.leafArea) against \(held.leafArea)")
        #expect((try FileManager.default.contentsOfDirectory(atPath: directory)).isEmpty, "the scratch file is removed")
    }

    /// Just past the limit, the spilled entries fill a single leaf: a root over one child.
    @Test func aSingleSpilledLeafIsATree() throws {
        let directory = NSTemporaryDirectory() + "rtree-entries-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let envelopes = (0..<12).map { Envelope(xmin: Double($0), ymin: 0, xmax: Double($0), ymax: 0) }
        let loaded = try Self.load(envelopes, memoryLimit: 10, boxes: [Envelope(xmin: 2.5, ymin: -1, xmax: 5, ymax: 1)], directory: directory)
        #expect(loaded.spilled && loaded.check == "ok" && loaded.rowids == 12)
        #expect(loaded.answers == [[Int64(3 * 7 + 1), Int64(4 * 7 + 1), Int64(5 * 7 + 1)]])
    }
}
