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
public struct RTreeBulkLoader {
    public struct Entry: Sendable, Equatable {
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

    public func build(_ entries: consuming [Entry]) -> Tree {
        var tree = Tree()
        tree.rowids.reserveCapacity(entries.count)
        var nextNode: Int64 = 2
        var items = entries
        var isLeafLevel = true
        while items.count > maxCells {
            let groups = pack(items)
            var parentsItems: [Entry] = []
            parentsItems.reserveCapacity(groups.count)
            for group in groups {
                let nodeno = nextNode
                nextNode += 1
                tree.nodes.append((nodeno, encode(group, depth: 0)))
                for item in group {
                    if isLeafLevel { tree.rowids.append((item.id, nodeno)) } else { tree.parents.append((item.id, nodeno)) }
                }
                parentsItems.append(Self.union(group, id: nodeno))
            }
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

    /// STR: sort by x into vertical slices of √P nodes each, sort slices by y, cut into nodes.
    func pack(_ items: consuming [Entry]) -> [[Entry]] {
        let nodeCount = (items.count + maxCells - 1) / maxCells
        let sliceCount = Int(Double(nodeCount).squareRoot().rounded(.up))
        let sliceSize = sliceCount * maxCells
        // Sorted in place, slice by slice: a million entries are 24 MB, and each copy counts.
        items.sort { $0.centerX < $1.centerX }
        var groups: [[Entry]] = []
        groups.reserveCapacity(nodeCount)
        var start = 0
        while start < items.count {
            let end = min(start + sliceSize, items.count)
            items[start..<end].sort { $0.centerY < $1.centerY }
            var offset = start
            while offset < end {
                groups.append(Array(items[offset..<min(offset + maxCells, end)]))
                offset += maxCells
            }
            start = end
        }
        return groups
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
