import Testing

@testable import OutpostWire

@Suite struct MultipartStreamParserTests {
    static let body = Array(
        ("preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\njson\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"a b.txt\"\r\nContent-Type: text/plain\r\n\r\n"
            + "line1\r\n--XyNot a boundary\r\n--XyZ--\r\n").utf8)

    /// Feeds the body in chunks of every size; the parts must come out the same.
    @Test(arguments: [1, 2, 3, 5, 7, 16, 64, 4096])
    func parsesAcrossChunkBoundaries(_ chunkSize: Int) throws {
        var parser = MultipartStreamParser(boundary: "XyZ")
        var events: [MultipartStreamParser.Event] = []
        var offset = 0
        while offset < Self.body.count {
            events += try parser.feed(Self.body[offset..<min(offset + chunkSize, Self.body.count)])
            offset += chunkSize
        }
        try parser.finish()
        var parts: [(String, String?, String?, [UInt8])] = []
        for event in events {
            switch event {
            case .partBegin(let name, let filename, let type): parts.append((name, filename, type, []))
            case .partData(let bytes): parts[parts.count - 1].3 += bytes
            case .partEnd: break
            }
        }
        #expect(parts.map(\.0) == ["f", "attachment"])
        #expect(parts[1].1 == "a b.txt" && parts[1].2 == "text/plain")
        #expect(String(decoding: parts[0].3, as: UTF8.self) == "json")
        #expect(String(decoding: parts[1].3, as: UTF8.self) == "line1\r\n--XyNot a boundary")
    }

    @Test func unterminatedBodiesAndHugeHeadersAreErrors() throws {
        var parser = MultipartStreamParser(boundary: "B")
        _ = try parser.feed(Array("--B\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nabc".utf8))
        #expect(throws: MultipartStreamParser.Error.self) { try parser.finish() }
        var flood = MultipartStreamParser(boundary: "B")
        #expect(throws: MultipartStreamParser.Error.self) {
            _ = try flood.feed(Array("--B\r\n".utf8) + Array(repeating: UInt8(ascii: "a"), count: 20_000))
        }
    }

    @Test func boundaryFromContentType() {
        #expect(MultipartStreamParser.boundary(fromContentType: "multipart/form-data; boundary=\"abc\"") == "abc")
        #expect(MultipartStreamParser.boundary(fromContentType: "multipart/form-data") == nil)
        #expect(MultipartStreamParser.boundary(fromContentType: "text/plain; boundary=x") == nil)
    }
}
