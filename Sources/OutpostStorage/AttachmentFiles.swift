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

/// Attachment bytes, shared by both backends: each attachment's bytes are one object
/// `attachments/<uuid>.bin` of the blob store (a file of the data folder by default), named by
/// its row. Objects are written before the transaction that registers them (no lock is held
/// while bytes are written) and an object is never changed: an update writes a new one, and
/// the old one goes once the transaction has committed.
///
/// Contract: `prepare` either puts every object of the edits in place or none (the ones it
/// made are removed before it throws); an object the transaction did not register is removed
/// by the caller (`remove`), so a failed or rolled back edit leaves nothing behind.
public struct AttachmentFiles: Sendable {
    public let blobs: BlobFiles
    public let temporaryDirectory: String

    public init(blobs: BlobFiles, temporaryDirectory: String) {
        self.blobs = blobs
        self.temporaryDirectory = temporaryDirectory
    }

    /// Objects as files of the data folder `directory` (the embedded default).
    public init(directory: String, temporaryDirectory: String) {
        self.init(blobs: .folder(directory), temporaryDirectory: temporaryDirectory)
    }

    /// A file with the bytes of the object `key` (the row's data path), to read.
    public func file(_ key: String) throws -> String { try blobs.file(key) }

    /// Puts the file `source` in the store (consuming it) and returns its key.
    public func adopt(_ source: String) throws -> String {
        let key = "attachments/\(UUID().uuidString.lowercased()).bin"
        try blobs.store.put(key, from: source, ifAbsent: false)
        return key
    }

    /// Puts `bytes` in the store and returns their key.
    public func adopt(bytes: [UInt8]) throws -> String {
        let key = "attachments/\(UUID().uuidString.lowercased()).bin"
        try blobs.store.put(key, bytes: bytes, ifAbsent: false)
        return key
    }

    /// Removes objects by their keys; a missing one is no error.
    public func remove(_ keys: some Sequence<String>) {
        for key in keys {
            try? blobs.delete(key)
        }
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
