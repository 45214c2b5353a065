import Foundation
import Hummingbird
import OutpostWire

/// A file part of a multipart request, already on disk.
struct UploadedFile: Sendable {
    var field: String
    var filename: String?
    var contentType: String?
    var path: String
    var size: Int
}

/// A request's parameters (query string overlaid by the body) and its file parts.
struct ReceivedForm: Sendable {
    var parameters: RequestParameters
    var files: [UploadedFile]

    func file(named field: String) -> UploadedFile? {
        for file in files where file.field.lowercased() == field.lowercased() { return file }
        return nil
    }

    /// Removes the temporary files that a handler did not take over.
    func discardFiles() {
        for file in files { try? FileManager.default.removeItem(atPath: file.path) }
    }
}

/// Limits on what a request may carry.
public struct UploadLimits: Sendable {
    /// The largest request body (and so the largest file) accepted.
    public var maxBodyBytes: Int
    /// The largest non-file form field.
    public var maxFieldBytes: Int

    public init(maxBodyBytes: Int = 512 * 1024 * 1024, maxFieldBytes: Int = 64 * 1024 * 1024) {
        self.maxBodyBytes = maxBodyBytes
        self.maxFieldBytes = maxFieldBytes
    }
}

extension Request {
    /// Whether the request announces a body larger than `limit` (refused before it is read).
    func announcesBody(over limit: Int) -> Bool {
        headers[.contentLength].flatMap { Int($0) }.map { $0 > limit } ?? false
    }

    /// Whether a body may follow the head (a POST with a length or chunked).
    var mayHaveBody: Bool {
        guard method == .post else { return false }
        if let length = headers[.contentLength].flatMap({ Int($0) }) { return length > 0 }
        return headers[.transferEncoding] != nil
    }

    /// Reads the body on top of the request's `query` parameters. Form fields go to the parameters; multipart file
    /// parts are streamed to files in `temporaryDirectory` as they arrive, so a large
    /// attachment is never held whole in memory. Every resource answers GET and POST alike.
    ///
    /// `admission` decides, as the body arrives, whether it may be read on (token security):
    /// nothing past its preamble, and no file part, is read before it admits the caller.
    /// Limits are enforced while streaming: the first byte over a limit stops the reading.
    func receiveForm(
        query: RequestParameters, limits: UploadLimits, temporaryDirectory: String,
        admission: inout BodyAdmission
    ) async throws -> ReceivedForm {
        var form = ReceivedForm(parameters: query, files: [])
        guard method == .post else {
            try admission.finish()
            return form
        }
        let contentType = headers[.contentType] ?? ""
        // Each refusal names the limit it applies: a form field (and a urlencoded body, which is
        // all fields) has a smaller one than a multipart body's files.
        func tooLarge(_ limit: Int = limits.maxBodyBytes, _ what: String = "The body") -> ArcGISError {
            ArcGISError(kind: .tooLarge, message: "Request body too large.", details: ["\(what) exceeds the limit of \(limit) bytes."])
        }
        if announcesBody(over: limits.maxBodyBytes) { throw tooLarge() }
        if let boundary = MultipartStreamParser.boundary(fromContentType: contentType) {
            var parser = MultipartStreamParser(boundary: boundary)
            var received = 0
            var field: (name: String, bytes: [UInt8])?
            var file: (spool: SpoolFile, upload: UploadedFile)?
            do {
                for try await chunk in body {
                    // Until the caller is known only the preamble is read: a chunk crossing its
                    // end (TLS hands larger ones than plain sockets) is parsed up to it first,
                    // so a token field inside it counts whatever the chunk's size.
                    var pieces = [chunk]
                    if !admission.isAdmitted, received + chunk.readableBytes > BodyAdmission.preambleBytes {
                        var rest = chunk
                        let head = rest.readSlice(length: max(0, BodyAdmission.preambleBytes - received))!
                        pieces = [head, rest]
                    }
                    for piece in pieces {
                        received += piece.readableBytes
                        if received > limits.maxBodyBytes { throw tooLarge() }
                        try admission.check(received: received)
                        let events: [MultipartStreamParser.Event]
                        do { events = try parser.feed(piece.readableBytesView) } catch {
                            throw ArcGISError.invalidParameter("body", error.description)
                        }
                        for event in events {
                            switch event {
                            case .partBegin(let name, let filename, let type):
                                if let filename {
                                    try admission.check(received: received, fileBegins: true)
                                    try FileManager.default.createDirectory(atPath: temporaryDirectory, withIntermediateDirectories: true)
                                    let path = (temporaryDirectory as NSString).appendingPathComponent("upload-\(UUID().uuidString)")
                                    file = (
                                        try SpoolFile(path: path),
                                        UploadedFile(field: name, filename: filename, contentType: type, path: path, size: 0)
                                    )
                                } else {
                                    field = (name, [])
                                }
                            case .partData(let bytes):
                                if file != nil {
                                    try await file!.spool.append(bytes)
                                    file!.upload.size += bytes.count
                                } else if field != nil {
                                    field!.bytes += bytes
                                    if field!.bytes.count > limits.maxFieldBytes { throw tooLarge(limits.maxFieldBytes, "A form field") }
                                }
                            case .partEnd:
                                if let current = file {
                                    try await current.spool.close()
                                    form.files.append(current.upload)
                                    file = nil
                                } else if let current = field {
                                    let value = String(decoding: current.bytes, as: UTF8.self)
                                    form.parameters[current.name] = value
                                    try await admission.field(current.name, value)
                                    field = nil
                                }
                            }
                        }
                    }
                }
                do { try parser.finish() } catch { throw ArcGISError.invalidParameter("body", error.description) }
                try admission.finish()
            } catch {
                if let current = file {
                    try? await current.spool.close(flushing: false)
                    try? FileManager.default.removeItem(atPath: current.upload.path)
                }
                form.discardFiles()
                throw error
            }
        } else {
            let limit = min(limits.maxBodyBytes, limits.maxFieldBytes)
            var collected: [UInt8] = []
            for try await chunk in body {
                if collected.count + chunk.readableBytes > limit { throw tooLarge(limit, "A form body without files") }
                collected.append(contentsOf: chunk.readableBytesView)
                if !admission.isAdmitted {
                    // Complete fields so far (up to the last `&`) may carry the token.
                    if let end = collected.lastIndex(of: UInt8(ascii: "&")) {
                        for (name, value) in FormURLEncoding.decode(bytes: Array(collected[..<end])) { try await admission.field(name, value) }
                    }
                    try admission.check(received: collected.count)
                }
            }
            if !collected.isEmpty {
                let fields = RequestParameters(FormURLEncoding.decode(bytes: collected))
                if let token = fields.string("token") { try await admission.field("token", token) }
                form.parameters.merge(fields)
            }
            try admission.finish()
        }
        return form
    }
}

/// A file part spooled to disk in batches written on the blocking pool, so a large upload
/// never holds a cooperative thread in a `write`.
final class SpoolFile: @unchecked Sendable {
    /// Bytes gathered before a write.
    static let batchBytes = 1 << 20
    private let handle: FileHandle
    private var batch: [UInt8] = []

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw ArcGISError.internalError("cannot create a temporary file for the upload")
        }
        self.handle = handle
        batch.reserveCapacity(Self.batchBytes)
    }

    func append(_ bytes: [UInt8]) async throws {
        batch += bytes
        if batch.count >= Self.batchBytes { try await flush() }
    }

    /// Writes what is gathered (unless the file is being thrown away) and closes.
    func close(flushing: Bool = true) async throws {
        if flushing { try await flush() }
        let handle = self.handle
        try await StoreCall.run { try handle.close() }
    }

    private func flush() async throws {
        guard !batch.isEmpty else { return }
        let bytes = batch
        batch.removeAll(keepingCapacity: true)
        let handle = self.handle
        try await StoreCall.run { try handle.write(contentsOf: bytes) }
    }
}
