import Foundation
import OutpostWire

/// Everything a generate or sync job knows, Codable: `toJSON` writes it, `fromJSON` reads it
/// back in any process (docs/client.md, "Jobs"). No credentials are kept.
struct JobDocument: Codable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable { case generate, sync, exportTiles }
    enum Step: String, Codable, Sendable { case prepare, submit, poll, download, finish, done }

    var format = 1
    var id: String
    var kind: Kind
    var serviceURL: String
    var status: JobStatus = .notStarted
    var progress: Double = 0
    var messages: [JobMessage] = []
    var step: Step = .prepare
    var error: ClientError?
    /// generate: the file to create; sync: the geodatabase.
    var path: String
    var generate: GenerateGeodatabaseParameters?
    var sync: SyncGeodatabaseParameters?
    var exportTiles: ExportTileCacheParameters?
    var statusURL: String?
    var resultURL: String?
    var partialPath: String?
    var receivedBytes = 0
    var totalBytes: Int?
    /// The `synchronizeReplica` form, fixed when the job prepared it: a retry sends the same.
    var syncFields: [[String]]?
    var editsFile: String?
    /// Its size: past `inlineEditsLimit` it is uploaded rather than sent in the form.
    var editsSize: Int?
    var editsUploadID: String?
    var throughChangeId: Int64 = 0
    var uploadedLayers: [Int] = []
    var editsUploaded = 0
    var syncResult: SyncResult?
    /// Status polls since the submission (the wait between them grows).
    var polls = 0
    /// The sync met a server restored from an older backup and made the file send everything
    /// again (once per job; docs/operations.md, "After a restore").
    var resentAfterRestore: Bool?

    init(
        id: String, kind: Kind, serviceURL: String, path: String, generate: GenerateGeodatabaseParameters? = nil,
        sync: SyncGeodatabaseParameters? = nil, exportTiles: ExportTileCacheParameters? = nil
    ) {
        self.exportTiles = exportTiles
        self.id = id
        self.kind = kind
        self.serviceURL = serviceURL
        self.path = path
        self.generate = generate
        self.sync = sync
    }

    /// `polls` is left out: a restored job starts polling quickly again.
    enum CodingKeys: String, CodingKey {
        case format, id, kind, serviceURL, status, progress, messages, step, error, path, generate, sync, exportTiles, statusURL, resultURL
        case partialPath, receivedBytes, totalBytes, syncFields, editsFile, editsSize, editsUploadID, throughChangeId, uploadedLayers
        case editsUploaded, syncResult, resentAfterRestore
    }
}
