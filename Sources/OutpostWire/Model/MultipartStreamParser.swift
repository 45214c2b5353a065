#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A streaming `multipart/form-data` parser (RFC 7578): fed the body chunk by chunk, it
/// returns events, holding back only what might be the start of a boundary. A 50 MB file
/// part passes through in chunk-sized pieces and is never whole in memory.
public struct MultipartStreamParser: Sendable {
    public enum Event: Sendable, Equatable {
        case partBegin(name: String, filename: String?, contentType: String?)
        case partData([UInt8])
        case partEnd
    }

    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    private enum State: Sendable { case preamble, headers, body, done }

    /// Part headers larger than this are refused (a body of only headers is an attack, not a form).
    public static let maximumHeaderBytes = 16 * 1024

    private let opening: [UInt8]  // "--boundary"
    private let delimiter: [UInt8]  // "\r\n--boundary"
    private var state = State.preamble
    private var buffer: [UInt8] = []

    public init(boundary: String) {
        opening = Array("--\(boundary)".utf8)
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    public var isComplete: Bool { state == .done }

    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(Error) -> [Event] {
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        while true {
            switch state {
            case .done:
                buffer.removeAll()
                return events
            case .preamble:
                guard let index = Self.find(opening, in: buffer, from: 0) else {
                    if buffer.count > Self.maximumHeaderBytes { throw Error(description: "multipart boundary not found") }
                    return events
                }
                guard let after = afterDelimiter(index + opening.count) else { return events }
                if after.closing {
                    state = .done
                    continue
                }
                buffer.removeFirst(after.offset)
                state = .headers
            case .headers:
                guard let end = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: buffer, from: 0) else {
                    if buffer.count > Self.maximumHeaderBytes { throw Error(description: "multipart part headers too large") }
                    return events
                }
                events.append(try Self.partBegin(String(decoding: buffer[..<end], as: UTF8.self)))
                buffer.removeFirst(end + 4)
                state = .body
            case .body:
                if let index = Self.find(delimiter, in: buffer, from: 0) {
                    guard let after = afterDelimiter(index + delimiter.count) else {
                        // The delimiter is here but not what follows it: emit the data before it and wait.
                        if index > 0 {
                            events.append(.partData(Array(buffer[..<index])))
                            buffer.removeFirst(index)
                        }
                        return events
                    }
                    if index > 0 { events.append(.partData(Array(buffer[..<index]))) }
                    events.append(.partEnd)
                    buffer.removeFirst(after.offset)
                    state = after.closing ? .done : .headers
                } else {
                    // Keep a tail that could be the start of the delimiter.
                    let safe = buffer.count - (delimiter.count - 1)
                    if safe > 0 {
                        events.append(.partData(Array(buffer[..<safe])))
                        buffer.removeFirst(safe)
                    }
                    return events
                }
            }
        }
    }

    /// Call at the end of the body: an unterminated form is an error.
    public func finish() throws(Error) {
        guard state == .done else { throw Error(description: "multipart body ended before its closing boundary") }
    }

    /// After a boundary: `--` closes the form, CRLF starts a part; nil when more bytes are needed.
    private func afterDelimiter(_ offset: Int) -> (offset: Int, closing: Bool)? {
        guard buffer.count >= offset + 2 else { return nil }
        if buffer[offset] == UInt8(ascii: "-") && buffer[offset + 1] == UInt8(ascii: "-") { return (offset + 2, true) }
        // Transport padding (spaces or tabs) may precede the CRLF.
        var i = offset
        while i < buffer.count, buffer[i] == 0x20 || buffer[i] == 0x09 { i += 1 }
        guard buffer.count >= i + 2 else { return nil }
        if buffer[i] == 0x0D && buffer[i + 1] == 0x0A { return (i + 2, false) }
        return (i, false)
    }

    private static func partBegin(_ headerText: String) throws(Error) -> Event {
        var name: String?
        var filename: String?
        var contentType: String?
        for line in headerText.split(separator: "\r\n") {
            let pieces = line.split(separator: ":", maxSplits: 1)
            guard pieces.count == 2 else { continue }
            let header = pieces[0].lowercased().trimmingWhitespace()
            let value = String(pieces[1]).trimmingWhitespace()
            if header == "content-disposition" {
                name = attribute("name", in: value)
                filename = attribute("filename", in: value)
            } else if header == "content-type" {
                contentType = value
            }
        }
        guard let name else { throw Error(description: "multipart part without a name") }
        return .partBegin(name: name, filename: filename, contentType: contentType)
    }

    static func attribute(_ key: String, in header: String) -> String? {
        for piece in header.split(separator: ";") {
            let pair = String(piece).trimmingWhitespace().split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].lowercased() == key else { continue }
            var value = String(pair[1])
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `start`. `memchr` finds each
    /// candidate first byte: a file part is scanned at memory speed, in any build.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start >= 0 else { return nil }
        let last = haystack.count - needle.count
        guard start <= last else { return nil }
        return haystack.withUnsafeBufferPointer { hay -> Int? in
            needle.withUnsafeBufferPointer { pattern -> Int? in
                guard let base = hay.baseAddress, let patternBase = pattern.baseAddress else { return nil }
                var i = start
                while i <= last {
                    guard let hit = memchr(base + i, Int32(pattern[0]), last - i + 1) else { return nil }
                    let index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + index, patternBase, pattern.count) == 0 { return index }
                    i = index + 1
                }
                return nil
            }
        }
    }

    public static func boundary(fromContentType contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        let value = attribute("boundary", in: contentType)
        return value?.isEmpty == false ? value : nil
    }
}
