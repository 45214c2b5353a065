/// An RGB picture written as a PNG file: 8-bit colour, no interlace, the pixels in stored
/// (uncompressed) deflate blocks, so nothing but this file is needed to write one. Meant for
/// small pictures (a thumbnail's 200 × 133 is 80 KB).
public struct PNGImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Red, green and blue per pixel, row by row from the top.
    public private(set) var pixels: [UInt8]

    public init(width: Int, height: Int, background: RGB) {
        precondition(width > 0 && height > 0 && width <= 4096 && height <= 4096, "a small picture")
        self.width = width
        self.height = height
        pixels = Array([background.red, background.green, background.blue].lazy.cycled(width * height))
    }

    public struct RGB: Sendable, Equatable {
        public var red, green, blue: UInt8
        public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }
    }

    /// Paints the pixel at column `x`, row `y` (outside the picture: nothing).
    public mutating func set(_ x: Int, _ y: Int, _ colour: RGB) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let at = (y * width + x) * 3
        pixels[at] = colour.red
        pixels[at + 1] = colour.green
        pixels[at + 2] = colour.blue
    }

    public func pixel(_ x: Int, _ y: Int) -> RGB {
        let at = (y * width + x) * 3
        return RGB(pixels[at], pixels[at + 1], pixels[at + 2])
    }

    /// The file's bytes.
    public var bytes: [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        Self.append32(UInt32(width), to: &header)
        Self.append32(UInt32(height), to: &header)
        header += [8, 2, 0, 0, 0]  // 8 bits, RGB, deflate, adaptive filters, no interlace
        Self.chunk("IHDR", header, into: &out)
        // Each row: filter type 0, then its pixels.
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (width * 3 + 1))
        for row in 0..<height {
            raw.append(0)
            raw += pixels[(row * width * 3)..<((row + 1) * width * 3)]
        }
        Self.chunk("IDAT", Self.zlibStored(raw), into: &out)
        Self.chunk("IEND", [], into: &out)
        return out
    }

    /// A zlib stream of `data` in stored blocks, with its Adler-32.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = min(data.count, start + 65_535)
            let length = UInt16(end - start)
            out.append(end == data.count ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            out += data[start..<end]
            start = end
        } while start < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        append32(b << 16 | a, to: &out)
        return out
    }

    static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        append32(UInt32(data.count), to: &out)
        let typed = Array(type.utf8) + data
        out += typed
        append32(crc32(typed), to: &out)
    }

    static func append32(_ value: UInt32, to out: inout [UInt8]) {
        out += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 as PNG (and zlib) compute it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

extension LazySequence {
    /// The elements repeated `count` times.
    fileprivate func cycled(_ count: Int) -> [Element] {
        let one = Array(self)
        var out: [Element] = []
        out.reserveCapacity(one.count * count)
        for _ in 0..<count { out += one }
        return out
    }
}
