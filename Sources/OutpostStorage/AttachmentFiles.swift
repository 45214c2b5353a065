import Foundation
import OutpostWire

/// An attachment's bytes put in place before the edit transaction that registers them:
/// `path` is relative to the data folder (`attachments/<uuid>.bin`), the value a row keeps.
public struct PreparedAttachmentFile: Sendable {
    public var path: String
    public var size: Int
    public var uploadName: String?

    public init(path: String, size: Int, uploadName: String? = nil) {
        self.path = path
        self.size = size
        self.uploadName = uploadName
    }
}

/// Attachment bytes in a data folder, shared by both backends: each attachment's bytes are one
/// file `attachments/<uuid>.bin`, named by its row. Files are written before the transaction
/// that registers them (no lock is held while bytes are written) and a file is never changed:
/// an update writes a new one, and the old one goes once the transaction has committed.
///
/// Contract: `prepare` either puts every file of the edits in place or none (the ones it made
/// are removed before it throws); a file the transaction did not register is removed by the
/// caller (`remove`), so a failed or rolled back edit leaves nothing behind.
public struct AttachmentFiles: Sendable {
    public let directory: String
    public let temporaryDirectory: String

    public init(directory: String, temporaryDirectory: String) {
        self.directory = directory
        self.temporaryDirectory = temporaryDirectory
    }

    /// The absolute path of a data-folder-relative path.
    public func path(of relative: String) -> String { (directory as NSString).appendingPathComponent(relative) }

    /// Moves `source` into `attachments/` and returns its path relative to the data folder.
    public func adopt(_ source: String) throws -> String {
        try FileManager.default.createDirectory(atPath: path(of: "attachments"), withIntermediateDirectories: true)
        let relative = "attachments/\(UUID().uuidString.lowercased()).bin"
        try FileManager.default.moveItem(atPath: source, toPath: path(of: relative))
        return relative
    }

    /// Writes `bytes` into `attachments/` (through a temporary file, so the file appears whole)
    /// and returns its path relative to the data folder.
    public func adopt(bytes: [UInt8]) throws -> String {
        try FileManager.default.createDirectory(atPath: temporaryDirectory, withIntermediateDirectories: true)
        let temporary = (temporaryDirectory as NSString).appendingPathComponent("inline-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw ArcGISError.internalError("cannot write attachment data")
        }
        return try adopt(temporary)
    }

    /// Removes files by their data-folder-relative paths; a missing one is no error.
    public func remove(_ relativePaths: some Sequence<String>) {
        for relative in relativePaths { try? FileManager.default.removeItem(atPath: path(of: relative)) }
    }

    /// Puts the bytes of every attachment add and update of `edits` in place, keyed by the
    /// attachment's GlobalID: `files` already on disk (spooled request parts, moved in), inline
    /// `data` (written), `uploadId` items (a copy, by `copyOfUpload`).
    public func prepare(
        _ edits: [LayerEdits], files: [String: (path: String, size: Int)] = [:],
        copyOfUpload: (String) throws -> (path: String, size: Int, name: String)
    ) throws -> [String: PreparedAttachmentFile] {
        var prepared: [String: PreparedAttachmentFile] = [:]
        do {
            for (globalId, file) in files {
                prepared[globalId] = PreparedAttachmentFile(path: try adopt(file.path), size: file.size)
            }
            for layerEdits in edits {
                guard let attachments = layerEdits.attachments else { continue }
                for edit in attachments.adds + attachments.updates {
                    switch edit.source {
                    case nil: continue
                    case .data(let bytes)?:
                        prepared[edit.globalId] = PreparedAttachmentFile(path: try adopt(bytes: bytes), size: bytes.count)
                    case .uploadId(let id)?:
                        let copy = try copyOfUpload(id)
                        prepared[edit.globalId] = PreparedAttachmentFile(path: try adopt(copy.path), size: copy.size, uploadName: copy.name)
                    }
                }
            }
        } catch {
            remove(prepared.values.map(\.path))
            throw error
        }
        return prepared
    }
}

/// What one edit transaction did to attachment files: the prepared files it registered (kept)
/// and the files of attachments it replaced or deleted (removed once it has committed).
public final class AttachmentFileChanges: @unchecked Sendable {
    public var registered: Set<String> = []
    public var removedAtCommit: [String] = []

    public init() {}
}
