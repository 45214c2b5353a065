import Foundation
import OutpostWire
import Testing

/// `ZipDirectory` (docs/home.md, "Publishing an upload"): an archive's directory read and
/// checked before GDAL opens it; each row of the refusals table is a case.
@Suite struct ZipDirectoryTests {
    /// One entry as the archive declares it.
    struct Declared {
        var name: String
        var bytes: [UInt8] = Array("data".utf8)
        var flags: UInt16 = 0x0800
        var method: UInt16 = 0
        var compressed: UInt32?
        var uncompressed: UInt32?
    }

    /// An archive of `entries` (stored; sizes as declared), with `comment` after the end record.
    static func archive(_ entries: [Declared], comment: [UInt8] = [], count: Int? = nil, disk: UInt16 = 0) -> [UInt8] {
        var out: [UInt8] = []
        var directory: [UInt8] = []
        func u16(_ value: UInt16, _ into: inout [UInt8]) { into += [UInt8(value & 0xFF), UInt8(value >> 8)] }
        func u32(_ value: UInt32, _ into: inout [UInt8]) {
            for shift in stride(from: 0, to: 32, by: 8) { into.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
        }
        for entry in entries {
            let offset = UInt32(out.count)
            let name = Array(entry.name.utf8)
            let compressed = entry.compressed ?? UInt32(entry.bytes.count)
            let uncompressed = entry.uncompressed ?? UInt32(entry.bytes.count)
            u32(0x0403_4b50, &out)
            for value in [20, entry.flags, entry.method, 0, 0x21] as [UInt16] { u16(value, &out) }
            u32(0, &out)
            u32(compressed, &out)
            u32(uncompressed, &out)
            u16(UInt16(name.count), &out)
            u16(0, &out)
            out += name + entry.bytes
            u32(0x0201_4b50, &directory)
            for value in [0x031E, 20, entry.flags, entry.method, 0, 0x21] as [UInt16] { u16(value, &directory) }
            u32(0, &directory)
            u32(compressed, &directory)
            u32(uncompressed, &directory)
            for value in [UInt16(name.count), 0, 0, 0, 0] { u16(value, &directory) }
            u32(0, &directory)
            u32(offset, &directory)
            directory += name
        }
        let start = UInt32(out.count)
        out += directory
        u32(0x0605_4b50, &out)
        u16(disk, &out)
        u16(0, &out)
        u16(UInt16(count ?? entries.count), &out)
        u16(UInt16(count ?? entries.count), &out)
        u32(UInt32(directory.count), &out)
        u32(start, &out)
        u16(UInt16(comment.count), &out)
        return out + comment
    }

    @Test func aShapefilesPartsAreListedWithTheirSizes() throws {
        let bytes = Self.archive(
            [
                Declared(name: "roads/"), Declared(name: "roads/roads.shp", bytes: [1, 2, 3]), Declared(name: "roads/roads.dbf"),
            ], comment: Array("made by hand".utf8))
        let zip = try ZipDirectory(bytes: bytes)
        #expect(zip.entries.map(\.name) == ["roads/", "roads/roads.shp", "roads/roads.dbf"])
        #expect(zip.entries[0].isDirectory && !zip.entries[1].isDirectory)
        #expect(zip.entries[1].uncompressedSize == 3 && zip.entries[1].compressedSize == 3)
        // The same from a file.
        let path = NSTemporaryDirectory() + "zip-\(UUID().uuidString).zip"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try ZipDirectory(path: path) == zip)
    }

    /// Each refusal, with an archive that earns it.
    static let refusals: [(String, [UInt8], ZipDirectory.Refusal)] = [
        ("not a zip", Array("name,x,y\nA,1,2\n".utf8), .notAZip),
        ("empty", [], .notAZip),
        ("absolute name", archive([Declared(name: "/etc/passwd")]), .unsafeName("/etc/passwd")),
        ("parent segment", archive([Declared(name: "a/../../x.shp")]), .unsafeName("a/../../x.shp")),
        ("backslash", archive([Declared(name: "a\\x.shp")]), .unsafeName("a\\x.shp")),
        ("empty segment", archive([Declared(name: "a//x.shp")]), .unsafeName("a//x.shp")),
        ("encrypted", archive([Declared(name: "x.shp", flags: 0x0801)]), .unsupported("encryption")),
        ("bzip2", archive([Declared(name: "x.shp", method: 12)]), .unsupported("compression method 12")),
        ("zip64 sizes", archive([Declared(name: "x.shp", compressed: 0xFFFF_FFFF, uncompressed: 0xFFFF_FFFF)]), .unsupported("ZIP64")),
        ("several disks", archive([Declared(name: "x.shp")], disk: 1), .unsupported("several disks")),
        ("a bomb's ratio", archive([Declared(name: "x.dbf", method: 8, compressed: 2_000, uncompressed: 1_000_000_000)]), .suspiciousRatio("x.dbf")),
        (
            "too large in all",
            archive((0..<5).map { Declared(name: "part\($0).dbf", compressed: 10_000_000, uncompressed: 1_000_000_000) }),
            .tooLarge(4 << 30)
        ),
        ("count beyond the directory", archive([Declared(name: "x.shp")], count: 40), .truncated),
    ]

    @Test(arguments: refusals.indices)
    func aHostileOrUnreadableArchiveIsRefusedSayingWhy(_ index: Int) {
        let (label, bytes, expected) = Self.refusals[index]
        #expect(throws: expected, "\(label)") { try ZipDirectory(bytes: bytes) }
    }

    /// An end record in another's comment (GDAL's minizip takes the last signature, a reader
    /// that checks comment lengths an earlier one): two readers, two directories. Refused.
    @Test func anArchiveWithTwoEndRecordsIsRefused() {
        let honest = Self.archive([Declared(name: "x.shp")])
        let inner = Array(honest.suffix(22))
        var record = Array(honest.dropLast(22))
        // The real end record's comment holds a copy of an end record and one byte more.
        let comment = inner + [0x20]
        record += Array(inner.prefix(20)) + [UInt8(comment.count & 0xFF), UInt8(comment.count >> 8)] + comment
        #expect(throws: ZipDirectory.Refusal.ambiguous) { try ZipDirectory(bytes: record) }
        // A signature in a comment ends nothing, yet it is refused all the same.
        let quoted = Self.archive([Declared(name: "x.shp")], comment: [0x50, 0x4B, 0x05, 0x06])
        #expect(throws: ZipDirectory.Refusal.ambiguous) { try ZipDirectory(bytes: quoted) }
    }

    @Test func moreEntriesThanTheLimitAreRefusedBeforeTheyAreRead() throws {
        var limits = ZipDirectory.Limits()
        limits.maxEntries = 3
        let bytes = Self.archive((0..<4).map { Declared(name: "f\($0).csv") })
        #expect(throws: ZipDirectory.Refusal.tooManyEntries(3)) { try ZipDirectory(bytes: bytes, limits: limits) }
        #expect(try ZipDirectory(bytes: Self.archive((0..<3).map { Declared(name: "f\($0).csv") }), limits: limits).entries.count == 3)
    }

    @Test func everyCutOfAnArchiveIsRefusedOrRead() {
        let whole = Self.archive([Declared(name: "a.shp"), Declared(name: "a.dbf", bytes: Array(repeating: 7, count: 100))])
        for length in 0..<whole.count {
            let cut = Array(whole.prefix(length))
            #expect(throws: ZipDirectory.Refusal.self) { try ZipDirectory(bytes: cut) }
        }
    }
}

/// `TarHeader` (a backup's download): ustar headers as tar reads them.
@Suite struct TarHeaderTests {
    @Test func aHeaderCarriesTheNameSizeAndChecksum() throws {
        let header = try TarHeader(path: "outpost-backup-1/data/outpost.sqlite", size: 1_234, modified: 1_700_000_000).bytes
        #expect(header.count == 512)
        #expect(String(decoding: header[0..<36], as: UTF8.self) == "outpost-backup-1/data/outpost.sqlite")
        #expect(String(decoding: header[124..<135], as: UTF8.self) == "00000002322")
        #expect(String(decoding: header[257..<262], as: UTF8.self) == "ustar")
        var blanked = header
        for i in 148..<156 { blanked[i] = UInt8(ascii: " ") }
        let sum = blanked.reduce(0) { $0 + Int($1) }
        #expect(Int(String(decoding: header[148..<154], as: UTF8.self), radix: 8) == sum)
        #expect(TarHeader.padding(after: 1_234).count == 302 && TarHeader.padding(after: 1_024).isEmpty)
        #expect(TarHeader.archiveLength([1_234, 0]) == 512 + 1_536 + 512 + 1_024)
    }

    @Test func aLongPathIsSplitAtASlashOrRefused() throws {
        let long = String(repeating: "d", count: 120) + "/" + String(repeating: "f", count: 90)
        let header = try TarHeader(path: long, size: 0, modified: 0).bytes
        #expect(String(decoding: header[0..<90], as: UTF8.self) == String(repeating: "f", count: 90))
        #expect(String(decoding: header[345..<465], as: UTF8.self) == String(repeating: "d", count: 120))
        #expect(throws: TarHeader.Refusal.nameTooLong(String(repeating: "x", count: 101))) {
            try TarHeader(path: String(repeating: "x", count: 101), size: 0, modified: 0)
        }
    }
}
