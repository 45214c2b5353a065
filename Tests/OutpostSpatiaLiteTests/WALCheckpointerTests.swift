import Foundation
import GRDB
import Logging
import OutpostSpatiaLite
import OutpostTestSupport
import ServiceLifecycle
import Testing

/// The WAL checkpointer, with and without its service running (docs/reliability.md).
@Suite struct WALCheckpointerTests {
    @Test func withoutItsServiceALargeCommitCheckpointsInlineAsSQLiteWould() throws {
        let store = try makeTemporaryStore()
        let inlineBefore = store.database.checkpointer.counts.inline
        try commitPastTheThreshold(store)
        // Copied before the commit returned: no waiting.
        #expect(try rowsInMainFile(store) == 2000)
        #expect(store.database.checkpointer.counts.inline > inlineBefore)
        #expect(store.database.checkpointer.counts.background == 0)
    }

    @Test func itsServiceCheckpointsInTheBackgroundAndEmptiesTheWALAtGracefulShutdown() async throws {
        let store = try makeTemporaryStore()
        let checkpointer = store.database.checkpointer
        let group = ServiceGroup(configuration: .init(services: store.backgroundServices, logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for _ in 0..<200 where !checkpointer.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            #expect(checkpointer.isRunning)
            // Creating the store (SpatiaLite's reference systems) checkpointed inline already.
            let inlineBefore = checkpointer.counts.inline
            await #expect(throws: WALCheckpointer.AlreadyRunning.self) { try await checkpointer.run() }

            try commitPastTheThreshold(store)
            // The main file alone holds the rows once the service copied them (its count moves
            // a moment after the copy). Read mid-checkpoint, the file may be half copied: that
            // read fails and is retried.
            var inMainFile = 0
            for _ in 0..<400 {
                inMainFile = (try? rowsInMainFile(store)) ?? 0
                if inMainFile == 2000 && checkpointer.counts.background >= 1 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(inMainFile == 2000)
            #expect(checkpointer.counts.background >= 1)
            #expect(checkpointer.counts.inline == inlineBefore)
            // A small commit leaves frames in the WAL, below the threshold.
            try store.write { db in try db.execute(sql: "INSERT INTO bulk(payload) VALUES (x'00')") }
            #expect(try walBytes(store) > 0)

            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(checkpointer.counts.atShutdown == 1)
        #expect(try walBytes(store) == 0, "the whole database is in its main file")
        #expect(!checkpointer.isRunning)
        // Stopped, the checkpointer falls back to checkpointing inline.
        let inlineAfterShutdown = checkpointer.counts.inline
        try store.write { db in
            for _ in 0..<2000 { try db.execute(sql: "INSERT INTO bulk(payload) VALUES (zeroblob(3500))") }
        }
        #expect(checkpointer.counts.inline > inlineAfterShutdown)
    }

    /// About 2,000 pages of 4 KiB in one commit, over the threshold of 1,000.
    private func commitPastTheThreshold(_ store: SpatiaLiteBackend) throws {
        try store.write { db in
            try db.execute(sql: "CREATE TABLE bulk(id INTEGER PRIMARY KEY, payload BLOB)")
            for _ in 0..<2000 { try db.execute(sql: "INSERT INTO bulk(payload) VALUES (zeroblob(3500))") }
        }
    }

    /// Rows of `bulk` in the main file alone (opened immutable: its WAL ignored).
    private func rowsInMainFile(_ store: SpatiaLiteBackend) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let file = try DatabaseQueue(path: "file:\(store.path)?immutable=1", configuration: configuration)
        defer { try? file.close() }
        return try file.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM bulk") ?? 0 }
    }

    private func walBytes(_ store: SpatiaLiteBackend) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: store.path + "-wal")[.size] as? Int) ?? -1
    }
}
