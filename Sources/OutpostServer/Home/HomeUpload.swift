import Foundation
import NIOCore
import OutpostHomeInputs

/// A file the page's request brought (already on disk), sent on to the REST API as a
/// client's multipart part: the form's fields, then the file read in pieces, never whole.
struct HomeUpload: Sendable {
    /// The part's field name (`file`).
    var field: String
    /// The name the browser gave (only its last component is kept).
    var filename: String
    var path: String

    /// The body: its boundary, its length, and its pieces.
    struct Body: Sendable {
        var boundary: String
        var length: Int
        var parts: Pieces
    }

    func multipart(fields: [(String, String)]) throws -> Body {
        let boundary = "outpost-home-" + UUID().uuidString
        var head = ""
        for (name, value) in fields {
            head += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(HomeInputs.quoted(name))\"\r\n\r\n\(value)\r\n"
        }
        head +=
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(HomeInputs.quoted(field))\"; filename=\"\(HomeInputs.quoted(filename))\"\r\n"
        head += "Content-Type: application/octet-stream\r\n\r\n"
        let tail = "\r\n--\(boundary)--\r\n"
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        return Body(boundary: boundary, length: head.utf8.count + size + tail.utf8.count, parts: Pieces(head: head, path: path, tail: tail))
    }

    /// The head, the file in 64 KiB pieces, the tail.
    struct Pieces: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let head: String
        let path: String
        let tail: String

        func makeAsyncIterator() -> Iterator { Iterator(pieces: self) }

        struct Iterator: AsyncIteratorProtocol {
            let pieces: Pieces
            var stage = 0
            var handle: FileHandle?

            mutating func next() async throws -> ByteBuffer? {
                switch stage {
                case 0:
                    stage = 1
                    handle = FileHandle(forReadingAtPath: pieces.path)
                    return ByteBuffer(string: pieces.head)
                case 1:
                    if let data = try handle?.read(upToCount: 1 << 16), !data.isEmpty { return ByteBuffer(bytes: data) }
                    try? handle?.close()
                    stage = 2
                    return ByteBuffer(string: pieces.tail)
                default:
                    return nil
                }
            }
        }
    }
}
