import Crypto
import Foundation
import OutpostWire

/// What the inner layers tell a test target's journal about a request, beyond what its
/// middleware sees: the form (masked and capped), the uploads' digests, the caller, the
/// ArcGIS error code of an envelope, a sync's generations, the fault that fired.
struct JournalFacts: Sendable {
    var parameters: [JournalParameter] = []
    var uploads: [JournalUpload] = []
    var user: String?
    var errorCode: Int?
    var generations: [Int: Int64]?
    var fault: String?
}

/// One file part of a request: its field, its file name, its size and the SHA-256 of what was
/// received.
struct JournalUpload: Sendable, Equatable {
    var name: String
    var filename: String?
    var bytes: Int
    var sha256: String
}

extension RequestRecord {
    /// Starts keeping journal facts for this request (the journal's middleware, outermost).
    func startJournaling() { journalFacts.withLock { $0 = JournalFacts() } }

    var isJournaling: Bool { journalFacts.withLock { $0 != nil } }

    /// The form as received: kept (masked, capped) only when the request is journaled, so a
    /// server without a test target neither copies parameters nor hashes uploads.
    func note(form: ReceivedForm, user: String?) {
        guard isJournaling else { return }
        let parameters = JournalParameter.masked(form.parameters)
        let uploads = form.files.map { file in
            JournalUpload(name: file.field, filename: file.filename, bytes: file.size, sha256: Self.sha256(ofFileAt: file.path) ?? "")
        }
        journalFacts.withLock {
            $0?.parameters = parameters
            $0?.uploads = uploads
            $0?.user = user
        }
    }

    /// The `code` of the ArcGIS error envelope the request was answered with.
    func note(errorCode: Int) { journalFacts.withLock { $0?.errorCode = errorCode } }

    /// The server generations a `synchronizeReplica` answered with, by layer.
    func note(generations: [Int: Int64]) { journalFacts.withLock { $0?.generations = generations } }

    /// The id of the fault rule that fired on the request.
    func note(fault: String) { journalFacts.withLock { $0?.fault = fault } }

    var journalSnapshot: JournalFacts? { journalFacts.withLock { $0 } }

    /// The lowercase hex SHA-256 of a spooled file, read in 1 MiB pieces.
    static func sha256(ofFileAt path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hash = SHA256()
        while let piece = try? handle.read(upToCount: 1 << 20), !piece.isEmpty { hash.update(data: piece) }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
