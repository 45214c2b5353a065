import Foundation
import GRDB

extension RTreeBulkLoader {
    /// Packs spilled entries with memory flat in their number, touching no database (so it
    /// may run on another thread while the connection builds other indexes): STR as in
    /// `build`, with the vertical slices cut at quantiles of a sample of the entries' x keys
    /// instead of at exact ranks. The entries are counted and distributed to their slices in a
    /// scratch file, then each slice, about √(N · cells per node) entries, is sorted by y in
    /// memory and cut into leaves (a node ends at `maxCells` or at its slice's end), encoded
    /// into a scratch file of nodes. The (rowid, leaf) pairs are distributed to rowid buckets
    /// as the leaves are cut, and each bucket is sorted in memory in place. Only the level
    /// above the leaves, one entry per node, is packed in memory.
    func packSpilled(_ spill: RTreeSpill) throws -> SpilledTree {
        try spill.entries.flush()
        let count = spill.count
        let nodeCount = (count + maxCells - 1) / maxCells
        let sliceCount = Int(Double(nodeCount).squareRoot().rounded(.up))
        let xBounds = Self.quantiles(spill.xSample.sorted(), count: sliceCount)
        let idBounds = Self.quantiles(spill.idSample.sorted(), count: max(1, (count + Self.rowidBucket - 1) / Self.rowidBucket))
        // Count each slice's and each rowid bucket's entries, then distribute the entries by slice.
        var sliceSizes = [Int](repeating: 0, count: xBounds.count + 1)
        var bucketSizes = [Int](repeating: 0, count: idBounds.count + 1)
        try spill.entries.scan { entry in
            sliceSizes[Self.bucket(of: Self.xKey(entry), bounds: xBounds)] += 1
            bucketSizes[Self.bucket(of: entry.id, bounds: idBounds)] += 1
        }
        let sliceStarts = Self.starts(sliceSizes)
        var bySlice = ScratchScatter(file: try ScratchFile<Entry>(directory: spill.directory), starts: sliceStarts)
        try spill.entries.scan { entry in try bySlice.add(entry, to: Self.bucket(of: Self.xKey(entry), bounds: xBounds)) }
        try bySlice.flush()

        let leaves = try ScratchFile<UInt8>(directory: spill.directory)
        var leafCount = 0
        var parents: [Entry] = []
        parents.reserveCapacity(nodeCount + sliceSizes.count)
        let bucketStarts = Self.starts(bucketSizes)
        var byRowid = ScratchScatter(file: try ScratchFile<RowidPair>(directory: spill.directory), starts: bucketStarts)
        var scratch: [UInt64] = []
        for slice in sliceSizes.indices where sliceSizes[slice] > 0 {
            let items = try bySlice.file.read(sliceStarts[slice]..<sliceStarts[slice] + sliceSizes[slice])
            var keys = items.indices.map { Self.key($0, items[$0].centerY) }
            if scratch.count < keys.count { scratch = [UInt64](repeating: 0, count: keys.count) }
            Self.sortByHigh32(&keys[...], scratch: &scratch)
            for start in stride(from: 0, to: keys.count, by: maxCells) {
                let group = keys[start..<min(start + maxCells, keys.count)].map { items[Int(truncatingIfNeeded: $0 & 0xFFFF_FFFF)] }
                let nodeno = Self.firstLeaf + Int64(leafCount)
                try leaves.write(encode(group, depth: 0), at: leafCount * nodeSize)
                leafCount += 1
                parents.append(Self.union(group, id: nodeno))
                for entry in group { try byRowid.add(RowidPair(rowid: entry.id, nodeno: nodeno), to: Self.bucket(of: entry.id, bounds: idBounds)) }
            }
        }
        try byRowid.flush()
        for bucket in bucketSizes.indices where bucketSizes[bucket] > 1 {
            let range = bucketStarts[bucket]..<bucketStarts[bucket] + bucketSizes[bucket]
            var pairs = try byRowid.file.read(range)
            pairs.sort { $0.rowid < $1.rowid }
            try byRowid.file.write(pairs, at: range.lowerBound)
        }
        let upper = build(level: parents, leaves: false, depth: 1, firstNode: Self.firstLeaf + Int64(leafCount))
        return SpilledTree(nodeSize: nodeSize, leaves: leaves, leafCount: leafCount, rowids: byRowid.file, rowidCount: count, upper: upper)
    }

    /// Leaves are numbered from here up, in the order they were cut (the root is node 1).
    static let firstLeaf: Int64 = 2

    /// Replaces the contents of `table` with a tree `packSpilled` made.
    static func write(_ tree: SpilledTree, into table: String, db: Database) throws {
        var writer = try ShadowTableWriter(table: table, db: db)
        let nodesPerRead = max(1, (1 << 20) / tree.nodeSize)
        for first in stride(from: 0, to: tree.leafCount, by: nodesPerRead) {
            let last = min(first + nodesPerRead, tree.leafCount)
            let bytes = try tree.leaves.read(first * tree.nodeSize..<last * tree.nodeSize)
            for leaf in first..<last {
                try writer.node(firstLeaf + Int64(leaf), Array(bytes[(leaf - first) * tree.nodeSize..<(leaf - first + 1) * tree.nodeSize]))
            }
        }
        for first in stride(from: 0, to: tree.rowidCount, by: 1 << 16) {
            for pair in try tree.rowids.read(first..<min(first + (1 << 16), tree.rowidCount)) { try writer.rowid(pair.rowid, leaf: pair.nodeno) }
        }
        for node in tree.upper.nodes { try writer.node(node.nodeno, node.data) }
        for row in tree.upper.parents { try writer.parent(of: row.nodeno, row.parent) }
        try writer.finish()
    }

    /// A tree packed from spilled entries: its leaves in a scratch file of nodes, its (rowid,
    /// leaf) pairs in rowid order in another, the levels above in memory. Made on one thread
    /// and handed whole to another, which writes it.
    struct SpilledTree: @unchecked Sendable {
        let nodeSize: Int
        let leaves: ScratchFile<UInt8>
        let leafCount: Int
        let rowids: ScratchFile<RowidPair>
        let rowidCount: Int
        let upper: Tree
    }

    struct RowidPair: BitwiseCopyable {
        var rowid: Int64
        var nodeno: Int64
    }

    /// Entries per `_rowid` bucket sorted in memory (about 4 MB of pairs).
    static let rowidBucket = 1 << 18

    /// The STR x key of an entry: its centre's x, ties broken by the id's low 32 bits, so that
    /// many entries on one x still cut into balanced slices.
    static func xKey(_ entry: Entry) -> UInt64 { key(Int(truncatingIfNeeded: entry.id), entry.centerX) }

    /// `count - 1` bounds cutting a sorted sample into `count` equal parts.
    static func quantiles<T>(_ sorted: [T], count: Int) -> [T] {
        guard count > 1, !sorted.isEmpty else { return [] }
        return (1..<count).map { sorted[$0 * sorted.count / count] }
    }

    /// The bucket of a value: how many bounds lie at or below it.
    static func bucket<T: Comparable>(of value: T, bounds: [T]) -> Int {
        var low = 0
        var high = bounds.count
        while low < high {
            let middle = (low + high) / 2
            if bounds[middle] <= value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    static func starts(_ sizes: [Int]) -> [Int] {
        var starts = [Int](repeating: 0, count: sizes.count)
        for index in sizes.indices.dropFirst() { starts[index] = starts[index - 1] + sizes[index - 1] }
        return starts
    }
}
