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
        files.first { $0.field.lowercased() == field.lowercased() }
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
    /// Reads the query string and the body. Form fields go to the parameters; multipart file
    /// parts are streamed to files in `temporaryDirectory` as they arrive, so a large
    /// attachment is never held whole in memory. Every resource answers GET and POST alike.
    func receiveForm(limits: UploadLimits, temporaryDirectory: String) async throws -> ReceivedForm {
        var form = ReceivedForm(parameters: RequestParameters(FormURLEncoding.decode(uri.query ?? "")), files: [])
        guard method == .post else { return form }
        let contentType = headers[.contentType] ?? ""
        func tooLarge() -> ArcGISError {
            ArcGISError(kind: .tooLarge, code: 413, message: "Request body too large.",
                        details: ["The body exceeds the limit of \(limits.maxBodyBytes) bytes."])
        }
        if let boundary = MultipartStreamParser.boundary(fromContentType: contentType) {
            var parser = MultipartStreamParser(boundary: boundary)
            var received = 0
            var field: (name: String, bytes: [UInt8])?
            var file: (handle: FileHandle, upload: UploadedFile)?
            do {
                for try await chunk in body {
                    received += chunk.readableBytes
                    if received > limits.maxBodyBytes { throw tooLarge() }
                    let events: [MultipartStreamParser.Event]
                    do { events = try parser.feed(chunk.readableBytesView) } catch {
                        throw ArcGISError.invalidParameter("body", error.description)
                    }
                    for event in events {
                        switch event {
                        case .partBegin(let name, let filename, let type):
                            if let filename {
                                try FileManager.default.createDirectory(atPath: temporaryDirectory, withIntermediateDirectories: true)
                                let path = (temporaryDirectory as NSString).appendingPathComponent("upload-\(UUID().uuidString)")
                                FileManager.default.createFile(atPath: path, contents: nil)
                                guard let handle = FileHandle(forWritingAtPath: path) else {
                                    throw ArcGISError.internalError("cannot create a temporary file for the upload")
                                }
                                file = (handle, UploadedFile(field: name, filename: filename, contentType: type, path: path, size: 0))
                            } else {
                                field = (name, [])
                            }
                        case .partData(let bytes):
                            if let current = file {
                                try current.handle.write(contentsOf: bytes)
                                file?.upload.size += bytes.count
                            } else if field != nil {
                                field!.bytes += bytes
                                if field!.bytes.count > limits.maxFieldBytes { throw tooLarge() }
                            }
                        case .partEnd:
                            if let current = file {
                                try current.handle.close()
                                form.files.append(current.upload)
                                file = nil
                            } else if let current = field {
                                form.parameters[current.name] = String(decoding: current.bytes, as: UTF8.self)
                                field = nil
                            }
                        }
                    }
                }
                do { try parser.finish() } catch { throw ArcGISError.invalidParameter("body", error.description) }
            } catch {
                if let current = file {
                    try? current.handle.close()
                    try? FileManager.default.removeItem(atPath: current.upload.path)
                }
                form.discardFiles()
                throw error
            }
        } else {
            let collected: ByteBuffer
            do {
                collected = try await body.collect(upTo: min(limits.maxBodyBytes, limits.maxFieldBytes))
            } catch {
                throw tooLarge()
            }
            if collected.readableBytes > 0 {
                form.parameters.merge(RequestParameters(FormURLEncoding.decode(bytes: Array(collected.readableBytesView))))
            }
        }
        return form
    }
}
