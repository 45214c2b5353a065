import Foundation
import GRDB
import OutpostWire

/// R-tree entries gathered for a bulk load (a replica file, an import), with memory flat in
/// their number: up to `memoryLimit` they are held and packed in memory, on another core
/// while the caller builds its other indexes; past it they go to a scratch file and are
/// packed, also on another core, by an external distribution sort (`RTreeBulkLoader.packSpilled`).
///
/// At the default limit the held entries and the packing's arrays take about 16 MB; the
/// spilled packing holds a slice and a rowid bucket at a time, and the level above the leaves.
public struct RTreeEntries {
    public static let defaultMemoryLimit = 1 << 18

    private var held: [RTreeBulkLoader.Entry] = []
    private var spill: RTreeSpill?
    public private(set) var count = 0
    public private(set) var extent = Envelope.empty
    let memoryLimit: Int
    public let scratchDirectory: String

    /// `scratchDirectory`: where the scratch file goes when the entries pass `memoryLimit`
    /// (a disk, not a memory file system: the point is to keep them out of memory).
    public init(scratchDirectory: String, memoryLimit: Int = defaultMemoryLimit) {
        self.scratchDirectory = scratchDirectory
        self.memoryLimit = memoryLimit
    }

    /// Whether the entries went to the scratch file.
    public var isSpilled: Bool { spill != nil }

    public mutating func append(id: Int64, envelope: Envelope) throws {
        guard !envelope.isEmpty else { return }
        extent.expand(envelope)
        let entry = RTreeBulkLoader.Entry(id: id, envelope: envelope)
        count += 1
        if let spill {
            try spill.add(entry)
            return
        }
        held.append(entry)
        if held.count > memoryLimit {
            let spill = try RTreeSpill(directory: scratchDirectory)
            for entry in held { try spill.add(entry) }
            held = []
            self.spill = spill
        }
    }

    /// Starts packing the entries for an R*Tree of `nodeSize`-byte nodes on another thread;
    /// `RTreePacking.write` waits for it and writes the tree.
    public consuming func pack(nodeSize: Int) -> RTreePacking {
        let loader = RTreeBulkLoader(nodeSize: nodeSize)
        if let spill {
            let handed = HandedOver(spill)
            return RTreePacking(.spilled(BackgroundWork { Result { try loader.packSpilled(handed.value) } }))
        }
        let entries = held
        held = []
        return RTreePacking(.inMemory(BackgroundWork { loader.build(entries) }))
    }

    /// Packs and writes the entries into `table` on this thread.
    public consuming func load(into table: String, db: Database) throws {
        try pack(nodeSize: try RTreeBulkLoader.nodeSize(of: table, db: db)).write(into: table, db: db)
    }
}

/// An R-tree being packed: `write` puts it into a table's shadow tables.
public final class RTreePacking {
    enum Work {
        case inMemory(BackgroundWork<RTreeBulkLoader.Tree>)
        case spilled(BackgroundWork<Result<RTreeBulkLoader.SpilledTree, any Error>>)
    }

    private let work: Work

    init(_ work: Work) { self.work = work }

    public func write(into table: String, db: Database) throws {
        switch work {
        case .inMemory(let packing): try RTreeBulkLoader.write(packing.wait(), into: table, db: db)
        case .spilled(let packing): try RTreeBulkLoader.write(packing.wait().get(), into: table, db: db)
        }
    }
}

/// Spilled R-tree entries: a scratch file of them, and a uniform sample (reservoir sampling,
/// seeded, so a load is repeatable) of their STR x keys and of their ids, from which the
/// external packing cuts balanced slices and rowid buckets.
final class RTreeSpill {
    static let sampleSize = 1 << 16
    let entries: ScratchFile<RTreeBulkLoader.Entry>
    let directory: String
    private(set) var xSample: [UInt64] = []
    private(set) var idSample: [Int64] = []
    private var random = SeededGenerator(seed: 0x5EED)

    init(directory: String) throws {
        entries = try ScratchFile(directory: directory)
        self.directory = directory
        xSample.reserveCapacity(Self.sampleSize)
        idSample.reserveCapacity(Self.sampleSize)
    }

    var count: Int { entries.count }

    func add(_ entry: RTreeBulkLoader.Entry) throws {
        try entries.append(entry)
        if xSample.count < Self.sampleSize {
            xSample.append(RTreeBulkLoader.xKey(entry))
            idSample.append(entry.id)
        } else {
            let slot = Int(random.next() % UInt64(entries.count))
            if slot < Self.sampleSize {
                xSample[slot] = RTreeBulkLoader.xKey(entry)
                idSample[slot] = entry.id
            }
        }
    }
}

/// A value given to another thread and no longer touched by the one that gave it.
struct HandedOver<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
