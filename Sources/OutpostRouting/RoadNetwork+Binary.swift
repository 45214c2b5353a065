import Foundation
import OutpostGeocoding

extension RoadNetwork {
    /// Why stored bytes are not a network.
    public enum DecodingError: Error, Equatable {
        case truncated
        case badVersion(UInt32)
        case inconsistent(String)
    }

    static let formatVersion: UInt32 = 1

    /// The network as the stores keep it (docs/routing.md, "Stored form"): a version, the
    /// counts, then each array little-endian.
    public func encoded() -> Data {
        var writer = ByteWriter()
        writer.u32(Self.formatVersion)
        writer.u32(UInt32(junctionCount))
        writer.u32(UInt32(edgeCount))
        writer.u32(UInt32(vertexX.count))
        writer.u32(UInt32(names.count))
        writer.u32(hasCost ? 1 : 0)
        for array in [junctionX, junctionY, edgeLength, edgeMinutes, edgeCost, vertexX, vertexY] {
            for value in array { writer.f64(value) }
        }
        for array in [edgeFrom, edgeTo, edgeName, vertexStart] {
            for value in array { writer.u32(UInt32(bitPattern: value)) }
        }
        for source in edgeSource { writer.u64(UInt64(bitPattern: source)) }
        writer.bytes += edgeDirections.map(\.rawValue)
        writer.bytes += edgeRestricted.map { $0 ? 1 : 0 }
        for name in names {
            let utf8 = Array(name.utf8)
            writer.u32(UInt32(utf8.count))
            writer.bytes.append(contentsOf: utf8)
        }
        return Data(writer.bytes)
    }

    /// Reads `encoded()`'s bytes, checking every index against its array.
    public init(decoding data: Data) throws {
        var reader = ByteReader(bytes: [UInt8](data))
        let version = try reader.u32()
        guard version == Self.formatVersion else { throw DecodingError.badVersion(version) }
        let junctions = Int(try reader.u32())
        let edges = Int(try reader.u32())
        let vertices = Int(try reader.u32())
        let nameCount = Int(try reader.u32())
        let withCost = try reader.u32() == 1
        // Each count is checked against the bytes left before an array of it is made.
        guard (junctions * 2 + edges * (withCost ? 3 : 2) + vertices * 2) * 8 + (edges * 3 + edges + 1) * 4 <= reader.remaining else {
            throw DecodingError.truncated
        }
        self.init()
        junctionX = try reader.f64s(junctions)
        junctionY = try reader.f64s(junctions)
        edgeLength = try reader.f64s(edges)
        edgeMinutes = try reader.f64s(edges)
        edgeCost = try reader.f64s(withCost ? edges : 0)
        vertexX = try reader.f64s(vertices)
        vertexY = try reader.f64s(vertices)
        edgeFrom = try reader.i32s(edges)
        edgeTo = try reader.i32s(edges)
        edgeName = try reader.i32s(edges)
        vertexStart = try reader.i32s(edges + 1)
        edgeSource = try (0..<edges).map { _ in Int64(bitPattern: try reader.u64()) }
        edgeDirections = try reader.take(edges).map { RoadNetwork.Directions(rawValue: $0 & 3) }
        edgeRestricted = try reader.take(edges).map { $0 != 0 }
        guard nameCount <= reader.remaining / 4 + 1 else { throw DecodingError.truncated }
        names = try (0..<nameCount).map { _ in String(decoding: try reader.take(Int(try reader.u32())), as: UTF8.self) }
        try checkConsistency()
    }

    func checkConsistency() throws {
        let junctionRange = 0..<Int32(junctionCount)
        guard edgeFrom.allSatisfy(junctionRange.contains), edgeTo.allSatisfy(junctionRange.contains) else {
            throw DecodingError.inconsistent("an edge names no junction")
        }
        guard edgeName.allSatisfy((0..<Int32(names.count)).contains) else { throw DecodingError.inconsistent("an edge names no name") }
        guard vertexStart.first == 0, vertexStart.last == Int32(vertexX.count),
            zip(vertexStart, vertexStart.dropFirst()).allSatisfy({ $1 - $0 >= 2 })
        else { throw DecodingError.inconsistent("an edge's vertices") }
        guard edgeLength.allSatisfy({ $0.isFinite && $0 > 0 }), edgeMinutes.allSatisfy({ $0.isFinite && $0 >= 0 }),
            edgeCost.allSatisfy({ $0.isFinite && $0 >= 0 })
        else { throw DecodingError.inconsistent("an edge's impedance") }
        // Every coordinate within Web Mercator's square, as the builder keeps them: the edge
        // locator's grid turns them into cell numbers, which NaN or 1e300 cannot be.
        let inside = { (value: Double) in value.isFinite && abs(value) <= WebMercator.halfWidth }
        guard vertexX.allSatisfy(inside), vertexY.allSatisfy(inside), junctionX.allSatisfy(inside), junctionY.allSatisfy(inside) else {
            throw DecodingError.inconsistent("a coordinate outside Web Mercator's square")
        }
    }
}

struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    mutating func f64(_ value: Double) { u64(value.bitPattern) }
}

struct ByteReader {
    let bytes: [UInt8]
    var offset = 0
    var remaining: Int { bytes.count - offset }

    mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw RoadNetwork.DecodingError.truncated }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func u32() throws -> UInt32 { try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) } }
    mutating func u64() throws -> UInt64 { try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) } }
    mutating func f64s(_ count: Int) throws -> [Double] { try (0..<count).map { _ in Double(bitPattern: try u64()) } }
    mutating func i32s(_ count: Int) throws -> [Int32] { try (0..<count).map { _ in Int32(bitPattern: try u32()) } }
}
