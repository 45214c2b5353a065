import OutpostWire

/// Builds a SQLite R*Tree bottom-up with Sort-Tile-Recursive packing and writes its nodes
/// straight into the virtual table's shadow tables.
///
/// SQLite's rtree module inserts one entry at a time at about 20 µs each (22 s for a million
/// points even in spatial order); packing the tree in Swift and writing ~20k node rows takes
/// a fraction of that. The node format is SQLite's (rtree.c): a 2-byte big-endian depth
/// (root only), a 2-byte cell count, then cells of a big-endian 64-bit id and four 32-bit
/// big-endian floats (minX, maxX, minY, maxY), rounded outwards. `rtreecheck()` verifies
/// the result in the tests.
public struct RTreeBulkLoader: Sendable {
    public struct Entry: Sendable, Equatable, BitwiseCopyable {
        public var id: Int64
        public var minX: Float
        public var maxX: Float
        public var minY: Float
        public var maxY: Float

        /// An entry whose float bounds enclose the double envelope.
        public init(id: Int64, envelope: Envelope) {
            self.id = id
            minX = Self.roundDown(envelope.xmin)
            maxX = Self.roundUp(envelope.xmax)
            minY = Self.roundDown(envelope.ymin)
            maxY = Self.roundUp(envelope.ymax)
        }

        public init(id: Int64, minX: Float, maxX: Float, minY: Float, maxY: Float) {
            self.id = id
            self.minX = minX
            self.maxX = maxX
            self.minY = minY
            self.maxY = maxY
        }

        static func roundDown(_ d: Double) -> Float {
            let f = Float(d)
            return Double(f) > d ? f.nextDown : f
        }

        static func roundUp(_ d: Double) -> Float {
            let f = Float(d)
            return Double(f) < d ? f.nextUp : f
        }

        var centerX: Float { minX / 2 + maxX / 2 }
        var centerY: Float { minY / 2 + maxY / 2 }
    }

    /// The rows to write into `<name>_node`, `<name>_rowid` and `<name>_parent`.
    public struct Tree: Sendable {
        public var nodes: [(nodeno: Int64, data: [UInt8])] = []
        public var rowids: [(rowid: Int64, nodeno: Int64)] = []
        public var parents: [(nodeno: Int64, parent: Int64)] = []
        public var depth = 0
    }

    public let nodeSize: Int
    public let maxCells: Int
    static let cellSize = 24

    /// `nodeSize` is the byte length of the table's existing root node blob.
    public init(nodeSize: Int) {
        self.nodeSize = nodeSize
        maxCells = (nodeSize - 4) / Self.cellSize
    }

    /// The tree over `entries`. `rowids` come in the entries' order: already the rowid order
    /// the loader writes them in when the entries were given by ascending id.
    public func build(_ entries: consuming [Entry]) -> Tree {
        build(level: entries, leaves: true, depth: 0, firstNode: 2)
    }

    /// The tree over one level's items: entries (`leaves`), or nodes already written, whose ids
    /// are their node numbers and below which `depth` levels lie. New nodes are numbered from
    /// `firstNode`; the root is node 1.
    func build(level entries: consuming [Entry], leaves: Bool, depth: Int, firstNode: Int64) -> Tree {
        var tree = Tree()
        tree.depth = depth
        var nextNode = firstNode
        var items = entries
        // The leaf each entry went to, by the entry's position (the level below the root's first).
        var leafOf = [Int64](repeating: 1, count: leaves ? items.count : 0)
        var isLeafLevel = leaves
        while items.count > maxCells {
            let order = strOrder(items)
            var parentsItems: [Entry] = []
            parentsItems.reserveCapacity((order.count + maxCells - 1) / maxCells)
            var group: [Entry] = []
            group.reserveCapacity(maxCells)
            // Slices hold a whole number of nodes, so cutting the order every `maxCells` cuts
            // each slice into its nodes.
            for start in stride(from: 0, to: order.count, by: maxCells) {
                let nodeno = nextNode
                nextNode += 1
                group.removeAll(keepingCapacity: true)
                for position in order[start..<min(start + maxCells, order.count)].lazy.map(Int.init) {
                    let item = items[position]
                    group.append(item)
                    if isLeafLevel { leafOf[position] = nodeno } else { tree.parents.append((item.id, nodeno)) }
                }
                tree.nodes.append((nodeno, encode(group, depth: 0)))
                parentsItems.append(Self.union(group, id: nodeno))
            }
            if isLeafLevel { tree.rowids = zip(items, leafOf).map { ($0.id, $1) } }
            items = parentsItems
            isLeafLevel = false
            tree.depth += 1
        }
        tree.nodes.append((1, encode(items, depth: tree.depth)))
        for item in items {
            if isLeafLevel { tree.rowids.append((item.id, 1)) } else { tree.parents.append((item.id, 1)) }
        }
        return tree
    }

    /// STR: the positions of `items` sorted by x into vertical slices of √P nodes each, each
    /// slice sorted by y. Sorted as 64-bit keys (an order-preserving image of the centre's
    /// float bits above the position), which a million entries sort far faster than structs
    /// compared through a closure.
    func strOrder(_ items: [Entry]) -> [UInt32] {
        let nodeCount = (items.count + maxCells - 1) / maxCells
        let sliceCount = Int(Double(nodeCount).squareRoot().rounded(.up))
        let sliceSize = sliceCount * maxCells
        precondition(items.count <= Int(UInt32.max), "positions fit the key's low 32 bits")
        var keys = items.indices.map { Self.key($0, items[$0].centerX) }
        var scratch = [UInt64](repeating: 0, count: keys.count)
        Self.sortByHigh32(&keys[...], scratch: &scratch)
        var start = 0
        while start < keys.count {
            let end = min(start + sliceSize, keys.count)
            for index in start..<end {
                let position = Int(truncatingIfNeeded: keys[index] & 0xFFFF_FFFF)
                keys[index] = Self.key(position, items[position].centerY)
            }
            Self.sortByHigh32(&keys[start..<end], scratch: &scratch)
            start = end
        }
        return keys.map { UInt32(truncatingIfNeeded: $0) }
    }

    /// Sorts keys by their upper 32 bits, stably (a least-significant-digit radix sort, four
    /// passes of a byte): ties keep their order, which is the order of the level below.
    static func sortByHigh32(_ keys: inout ArraySlice<UInt64>, scratch: inout [UInt64]) {
        let count = keys.count
        guard count > 1 else { return }
        keys.withUnsafeMutableBufferPointer { source in
            scratch.withUnsafeMutableBufferPointer { target in
                var from = source.baseAddress!
                var to = target.baseAddress!
                for shift in stride(from: 32, to: 64, by: 8) {
                    var offsets = [Int](repeating: 0, count: 257)
                    for index in 0..<count { offsets[Int(truncatingIfNeeded: from[index] >> UInt64(shift)) & 0xFF + 1] += 1 }
                    for digit in 1...256 { offsets[digit] += offsets[digit - 1] }
                    for index in 0..<count {
                        let digit = Int(truncatingIfNeeded: from[index] >> UInt64(shift)) & 0xFF
                        to[offsets[digit]] = from[index]
                        offsets[digit] += 1
                    }
                    swap(&from, &to)
                }
                // Four passes: the sorted keys are back where they started.
            }
        }
    }

    /// `value`'s float bits made to sort as unsigned integers in the floats' order, above `position`.
    static func key(_ position: Int, _ value: Float) -> UInt64 {
        let bits = (value == 0 ? 0 : value).bitPattern  // −0 sorts with +0, as the floats compare
        let ordered = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
        return UInt64(ordered) << 32 | UInt64(UInt32(truncatingIfNeeded: position))
    }

    static func union(_ group: [Entry], id: Int64) -> Entry {
        var result = Entry(id: id, minX: .infinity, maxX: -.infinity, minY: .infinity, maxY: -.infinity)
        for e in group {
            result.minX = min(result.minX, e.minX)
            result.maxX = max(result.maxX, e.maxX)
            result.minY = min(result.minY, e.minY)
            result.maxY = max(result.maxY, e.maxY)
        }
        return result
    }

    func encode(_ cells: [Entry], depth: Int) -> [UInt8] {
        var data = [UInt8](repeating: 0, count: nodeSize)
        data[0] = UInt8(truncatingIfNeeded: depth >> 8)
        data[1] = UInt8(truncatingIfNeeded: depth)
        data[2] = UInt8(truncatingIfNeeded: cells.count >> 8)
        data[3] = UInt8(truncatingIfNeeded: cells.count)
        var offset = 4
        func put32(_ v: UInt32) {
            data[offset] = UInt8(truncatingIfNeeded: v >> 24)
            data[offset + 1] = UInt8(truncatingIfNeeded: v >> 16)
            data[offset + 2] = UInt8(truncatingIfNeeded: v >> 8)
            data[offset + 3] = UInt8(truncatingIfNeeded: v)
            offset += 4
        }
        for cell in cells {
            let id = UInt64(bitPattern: cell.id)
            put32(UInt32(truncatingIfNeeded: id >> 32))
            put32(UInt32(truncatingIfNeeded: id))
            put32(cell.minX.bitPattern)
            put32(cell.maxX.bitPattern)
            put32(cell.minY.bitPattern)
            put32(cell.maxY.bitPattern)
        }
        return data
    }

    /// The union of the cells of a node blob (the root's is the whole tree's extent).
    public static func extent(ofNode data: [UInt8]) -> Envelope {
        guard data.count >= 4 else { return .empty }
        let count = Int(data[2]) << 8 | Int(data[3])
        var envelope = Envelope.empty
        func float(at offset: Int) -> Double {
            let bits = UInt32(data[offset]) << 24 | UInt32(data[offset + 1]) << 16 | UInt32(data[offset + 2]) << 8 | UInt32(data[offset + 3])
            return Double(Float(bitPattern: bits))
        }
        for i in 0..<count {
            let base = 4 + i * cellSize + 8
            guard base + 16 <= data.count else { break }
            envelope.expand(Envelope(xmin: float(at: base), ymin: float(at: base + 8), xmax: float(at: base + 4), ymax: float(at: base + 12)))
        }
        return envelope
    }
}
