/// ArcGIS's compressed geometry (directions' `compressedGeometry`): the multiplication factor,
/// then each point's x and y as differences from the last, rounded at that factor, each a
/// sign and base-32 digits (docs/routing.md, "Directions").
public enum CompressedGeometry {
    static let digits = Array("0123456789abcdefghijklmnopqrstuv")

    public static func encode(_ points: [(x: Double, y: Double)], factor: Int) -> String {
        var text = signed(Int64(factor))
        var last: (Int64, Int64) = (0, 0)
        for point in points {
            guard point.x.isFinite, point.y.isFinite else { continue }
            let x = Int64((point.x * Double(factor)).rounded())
            let y = Int64((point.y * Double(factor)).rounded())
            text += signed(x - last.0) + signed(y - last.1)
            last = (x, y)
        }
        return text
    }

    /// The points of `encode`'s text (a round trip, and a check on clients' decoders).
    public static func decode(_ text: String) -> [(x: Double, y: Double)]? {
        var numbers: [Int64] = []
        var current: Int64?
        var negative = false
        for character in text {
            if character == "+" || character == "-" {
                if let current { numbers.append(negative ? -current : current) }
                current = 0
                negative = character == "-"
            } else if let digit = digits.firstIndex(of: character), let value = current {
                let (shifted, overflow) = value.multipliedReportingOverflow(by: 32)
                guard !overflow else { return nil }
                current = shifted + Int64(digit)
            } else {
                return nil
            }
        }
        if let current { numbers.append(negative ? -current : current) }
        guard let factor = numbers.first, factor > 0, numbers.count % 2 == 1 else { return nil }
        var points: [(x: Double, y: Double)] = []
        var x: Int64 = 0
        var y: Int64 = 0
        for i in stride(from: 1, to: numbers.count, by: 2) {
            x &+= numbers[i]
            y &+= numbers[i + 1]
            points.append((Double(x) / Double(factor), Double(y) / Double(factor)))
        }
        return points
    }

    static func signed(_ value: Int64) -> String {
        var magnitude = value.magnitude
        var text: [Character] = []
        repeat {
            text.append(digits[Int(magnitude % 32)])
            magnitude /= 32
        } while magnitude > 0
        return (value < 0 ? "-" : "+") + String(text.reversed())
    }
}
