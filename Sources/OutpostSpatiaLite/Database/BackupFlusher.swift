import Dispatch
import Foundation
import OutpostStorage
import Synchronization

/// Flushes a file being written, one step behind its writer: after each step the writer
/// hands over, the flush of everything written so far starts on a thread of its own while the
/// writer goes on with the next step. At most one flush is in flight, so at most two steps'
/// writes are ever unflushed.
///
/// Why: a server's commits wait for their own flushes, and a flush queued behind a whole
/// database's unflushed pages stalls them; flushing each step keeps that queue short. Waiting
/// for each step's flush before copying the next made the copy wait for the disk, and the disk
/// for the copy (bench/backup.py, docs/operations.md "Backups").
final class BackupFlusher: Sendable {
    private let descriptor: Int32
    private let path: String
    private let queue = DispatchQueue(label: "outpost.backup-flush")
    /// One permit: a flush in flight holds it.
    private let permit = DispatchSemaphore(value: 1)
    /// The first flush that failed, as `errno`.
    private let failure = Mutex<Int32?>(nil)

    /// Opens `path`, which the writer creates, for flushing.
    init(path: String) throws(BackupFailure) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .fileSystem(path: path, errno: errno) }
    }

    deinit { close(descriptor) }

    /// The writer finished a step: waits for the previous step's flush, then starts this one's.
    func stepWritten() {
        permit.wait()
        queue.async { [self] in
            flush()
            permit.signal()
        }
    }

    /// The writer is done: waits for the flush in flight and flushes what is left.
    func finish() throws(BackupFailure) {
        permit.wait()
        defer { permit.signal() }
        flush()
        if let code = failure.withLock({ $0 }) { throw .fileSystem(path: path, errno: code) }
    }

    private func flush() {
        if fdatasync(descriptor) != 0 {
            let code = errno
            failure.withLock { $0 = $0 ?? code }
        }
    }
}
