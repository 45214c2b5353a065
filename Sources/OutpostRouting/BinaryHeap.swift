/// A min-heap of junctions by cost, for Dijkstra (stale entries are skipped by the caller).
struct BinaryHeap {
    private var keys: [Double] = []
    private var values: [Int32] = []

    var isEmpty: Bool { keys.isEmpty }

    mutating func push(_ key: Double, _ value: Int32) {
        keys.append(key)
        values.append(value)
        var child = keys.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard keys[child] < keys[parent] else { break }
            keys.swapAt(child, parent)
            values.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (key: Double, value: Int32)? {
        guard let top = keys.first, let value = values.first else { return nil }
        let lastKey = keys.removeLast()
        let lastValue = values.removeLast()
        if !keys.isEmpty {
            keys[0] = lastKey
            values[0] = lastValue
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < keys.count else { break }
                let right = left + 1
                let child = right < keys.count && keys[right] < keys[left] ? right : left
                guard keys[child] < keys[parent] else { break }
                keys.swapAt(child, parent)
                values.swapAt(child, parent)
                parent = child
            }
        }
        return (top, value)
    }
}
