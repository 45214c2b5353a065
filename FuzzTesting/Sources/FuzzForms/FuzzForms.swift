import FuzzCommon
import OutpostWire

// Request bodies: `application/x-www-form-urlencoded` (FormURLEncoding, RequestParameters and
// its typed accessors) and `multipart/form-data` (MultipartStreamParser fed in chunks).
//
// Input: a first byte choosing the form (`F` or anything even: url-encoded), then for
// multipart `<Content-Type>\n<chunk sizes>\n<body>`, each byte of the chunk sizes giving one
// chunk's length (cycled; none: the whole body at once).
//
// Oracles: every decoded pair survives percent-encoding and decoding again; the multipart
// parser gives the same parts and bytes however the body is cut into chunks, and no more
// bytes than the body holds.

private func urlEncoded(_ bytes: [UInt8]) {
    let pairs = FormURLEncoding.decode(bytes: bytes)
    let parameters = RequestParameters(pairs)
    for name in parameters.names {
        _ = parameters.string(name)
        _ = try? parameters.bool(name, default: false)
        _ = try? parameters.int(name)
        _ = try? parameters.double(name)
        _ = try? parameters.json(name)
        _ = try? parameters.intList(name)
        _ = parameters.nameList(name)
    }
    for (name, value) in pairs {
        let encoded = FormURLEncoding.percentEncode(name) + "=" + FormURLEncoding.percentEncode(value)
        let again = FormURLEncoding.decode(encoded)
        fuzzCheck(again.count == 1 && again[0].0 == name && again[0].1 == value, "(\(name), \(value)) does not survive encoding: \(again)")
    }
}

/// The events with neighbouring data joined, the part headers kept: what a reader of the form sees.
private struct Form: Equatable {
    var events: [MultipartStreamParser.Event] = []

    mutating func add(_ new: [MultipartStreamParser.Event]) {
        for event in new {
            if case .partData(let more) = event, case .partData(let data)? = events.last {
                events[events.count - 1] = .partData(data + more)
            } else if case .partData(let data) = event, data.isEmpty {
                continue
            } else {
                events.append(event)
            }
        }
    }

    var dataBytes: Int {
        events.reduce(0) { total, event in
            if case .partData(let data) = event { return total + data.count }
            return total
        }
    }
}

/// Feeds `body` in chunks of `sizes` (all at once when empty); nil when the parser refuses it.
private func parse(_ body: [UInt8], boundary: String, sizes: [UInt8]) -> (form: Form, complete: Bool)? {
    var parser = MultipartStreamParser(boundary: boundary)
    var form = Form()
    var offset = 0
    var turn = 0
    do {
        while offset < body.count {
            let size = sizes.isEmpty ? body.count : Int(sizes[turn % sizes.count]) + 1
            turn += 1
            let end = min(offset + size, body.count)
            form.add(try parser.feed(body[offset..<end]))
            offset = end
        }
        if body.isEmpty { form.add(try parser.feed([])) }
    } catch {
        return nil
    }
    return (form, (try? parser.finish()) != nil)
}

private func multipart(_ bytes: [UInt8]) {
    let parts = FuzzInput(bytes: bytes).byteFields(3)
    guard let boundary = MultipartStreamParser.boundary(fromContentType: String(decoding: parts[0], as: UTF8.self)) else { return }
    let sizes = parts[1]
    let body = parts[2]
    let chunked = parse(body, boundary: boundary, sizes: sizes)
    let whole = parse(body, boundary: boundary, sizes: [])
    if let chunked { fuzzCheck(chunked.form.dataBytes <= body.count, "more data than the body holds") }
    // The size limits may refuse a body cut one way and not another (they count buffered bytes).
    if let chunked, let whole {
        fuzzCheck(chunked.form == whole.form, "chunks \(sizes) parse differently: \(chunked.form.events) vs \(whole.form.events)")
        fuzzCheck(chunked.complete == whole.complete, "chunks \(sizes) end differently")
    }
    // One byte at a time, the hardest cut.
    if body.count <= 4096, let bytewise = parse(body, boundary: boundary, sizes: [0]), let whole {
        fuzzCheck(bytewise.form == whole.form, "byte by byte parses differently: \(bytewise.form.events) vs \(whole.form.events)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let (mode, rest) = FuzzInput(start, count).split else { return 0 }
    if mode == UInt8(ascii: "F") || (mode != UInt8(ascii: "M") && mode % 2 == 0) {
        urlEncoded(rest)
    } else {
        multipart(rest)
    }
    return 0
}

@main
enum FuzzFormsMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
