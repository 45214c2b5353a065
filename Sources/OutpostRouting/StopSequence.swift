/// The order to visit stops in (`findBestSequence`), from their impedance matrix: every order
/// when at most `exhaustiveLimit` stops may move, else nearest neighbour improved by 2-opt.
/// The first and last stay put when asked. Unreachable pairs cost infinity.
public enum StopSequence {
    public static let exhaustiveLimit = 7

    /// Stop indices in visiting order.
    public static func best(_ costs: [[Double]], preserveFirst: Bool, preserveLast: Bool) -> [Int] {
        let count = costs.count
        guard count > 2 || (count == 2 && !preserveFirst) else { return Array(0..<count) }
        let head = preserveFirst ? [0] : []
        let tail = preserveLast && count > 1 ? [count - 1] : []
        let movable = (0..<count).filter { !head.contains($0) && !tail.contains($0) }
        func total(_ order: [Int]) -> Double { zip(order, order.dropFirst()).reduce(0) { $0 + costs[$1.0][$1.1] } }
        if movable.count <= exhaustiveLimit {
            var bestOrder = head + movable + tail
            var bestCost = total(bestOrder)
            permutations(movable) { order in
                let candidate = head + order + tail
                let cost = total(candidate)
                if cost < bestCost {
                    bestCost = cost
                    bestOrder = candidate
                }
            }
            return bestOrder
        }
        // Nearest neighbour from the first stop (or the first movable one), then 2-opt.
        var remaining = movable
        var order = head
        if order.isEmpty { order.append(remaining.removeFirst()) }
        while !remaining.isEmpty {
            let last = order[order.count - 1]
            let next = remaining.indices.min { costs[last][remaining[$0]] < costs[last][remaining[$1]] } ?? 0
            order.append(remaining.remove(at: next))
        }
        order += tail
        var improved = true
        var rounds = 0
        let fixedHead = head.count
        let fixedTail = tail.count
        while improved, rounds < 100 {
            improved = false
            rounds += 1
            for i in fixedHead..<(order.count - fixedTail) {
                for k in (i + 1)..<(order.count - fixedTail) {
                    var candidate = order
                    candidate[i...k].reverse()
                    if total(candidate) < total(order) {
                        order = candidate
                        improved = true
                    }
                }
            }
        }
        return order
    }

    /// Calls `body` with every ordering of `items` (Heap's algorithm).
    static func permutations(_ items: [Int], _ body: ([Int]) -> Void) {
        var items = items
        var counters = [Int](repeating: 0, count: items.count)
        body(items)
        var i = 0
        while i < items.count {
            if counters[i] < i {
                items.swapAt(i % 2 == 0 ? 0 : counters[i], i)
                body(items)
                counters[i] += 1
                i = 0
            } else {
                counters[i] = 0
                i += 1
            }
        }
    }
}
