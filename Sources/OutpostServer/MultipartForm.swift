import OutpostWire

/// A minimal `multipart/form-data` parser over a collected body (RFC 7578): part headers
/// `Content-Disposition` (name, filename) and `Content-Type`, and the raw part bytes.
struct MultipartForm {
    struct Part {
        var name: String
        var filename: String?
        var contentType: String?
        var data: [UInt8]
    }

    static func boundary(fromContentType contentType: String) -> String? {
        for piece in contentType.split(separator: ";") {
            let trimmed = String(piece).trimmingWhitespace()
            if trimmed.lowercased().hasPrefix("boundary=") {
                var value = String(trimmed.dropFirst("boundary=".count))
                if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    static func parse(_ body: [UInt8], boundary: String) throws(ArcGISError) -> [Part] {
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [Part] = []
        guard var position = find(delimiter, in: body, from: 0) else {
            throw .invalidParameter("body", "multipart boundary not found")
        }
        while true {
            position += delimiter.count
            if position + 1 < body.count, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-") { break }
            // Skip the CRLF after the delimiter.
            if position + 1 < body.count, body[position] == 0x0D, body[position + 1] == 0x0A { position += 2 }
            guard let headerEnd = find([0x0D, 0x0A, 0x0D, 0x0A], in: body, from: position) else {
                throw .invalidParameter("body", "malformed multipart part headers")
            }
            let headerText = String(decoding: body[position..<headerEnd], as: UTF8.self)
            let dataStart = headerEnd + 4
            guard let next = find([0x0D, 0x0A] + delimiter, in: body, from: dataStart) else {
                throw .invalidParameter("body", "unterminated multipart part")
            }
            var part = Part(name: "", filename: nil, contentType: nil, data: Array(body[dataStart..<next]))
            for line in headerText.split(separator: "\r\n") {
                let pieces = line.split(separator: ":", maxSplits: 1)
                guard pieces.count == 2 else { continue }
                let name = pieces[0].lowercased().trimmingWhitespace()
                let value = String(pieces[1]).trimmingWhitespace()
                if name == "content-disposition" {
                    part.name = attribute("name", in: value) ?? ""
                    part.filename = attribute("filename", in: value)
                } else if name == "content-type" {
                    part.contentType = value
                }
            }
            parts.append(part)
            position = next + 2
        }
        return parts
    }

    private static func attribute(_ key: String, in header: String) -> String? {
        for piece in header.split(separator: ";") {
            let trimmed = String(piece).trimmingWhitespace()
            let pair = trimmed.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].lowercased() == key else { continue }
            var value = String(pair[1])
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var i = start
        let last = haystack.count - needle.count
        let first = needle[0]
        while i <= last {
            if haystack[i] == first {
                var matched = true
                for j in 1..<needle.count where haystack[i + j] != needle[j] { matched = false; break }
                if matched { return i }
            }
            i += 1
        }
        return nil
    }
}
