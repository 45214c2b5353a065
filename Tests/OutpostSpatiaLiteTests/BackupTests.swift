import Foundation
import GRDB
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Synchronization
import Testing

@testable import OutpostSpatiaLite
@testable import OutpostStorage

/// Online backups of a data folder and their restore (docs/operations.md, "Backups").
@Suite struct BackupTests {
    static func point(_ value: Int) -> EditFeature {
        EditFeature(attributes: ["label": .string("p\(value)"), "value": .int(Int64(value))], geometry: ["x": 13.4, "y": 52.5])
    }

    static func count(_ store: SpatiaLiteBackend) throws -> Int { try store.features.count(service: "Points", layer: 0) }

    @Test func aBackupTakenWhileEditsLandHoldsEveryEditAcknowledgedBeforeItAndRestores() async throws {
        let store = try makeTemporaryStore()
        _ = try store.schema.createService(pointLayerService(name: "Points"))
        let acknowledged = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let writer = Task.detached {
            var value = 0
            while !stop.load(ordering: .relaxed) {
                value += 1
                _ = try store.edits.applyEdits(service: "Points", edits: [LayerEdits(layerId: 0, adds: [Self.point(value)])], options: EditOptions())
                acknowledged.store(value, ordering: .relaxed)
            }
        }
        while acknowledged.load(ordering: .relaxed) < 50 { try await Task.sleep(for: .milliseconds(5)) }
        let before = acknowledged.load(ordering: .relaxed)
        let backups = TestFolders.make("backups")
        let (folder, manifest) = try SpatiaLiteBackup.backup(data: store.directory, into: backups)
        stop.store(true, ordering: .relaxed)
        try await writer.value
        let after = try Self.count(store)

        let restoredFolder = TestFolders.make("restored") + "/data"
        let (read, identity) = try SpatiaLiteBackup.restore(folder, into: restoredFolder)
        #expect(read == manifest)
        let restored = try SpatiaLiteBackend(dataDirectory: restoredFolder)
        let kept = try Self.count(restored)
        // Every edit acknowledged before the backup began is in it; none after the snapshot is.
        #expect(kept >= before && kept <= after)
        #expect(try restored.edits.currentGeneration() == manifest.generation)
        #expect(identity.id == (try store.identity()).id && identity.epoch == 1 && manifest.store.epoch == 0)
        #expect(try restored.identity() == identity)
        #expect(manifest.migrations.last == SpatiaLiteBackend.knownMigrations.last)
        // The restored store serves and takes edits.
        let outcome = try restored.edits.applyEdits(
            service: "Points", edits: [LayerEdits(layerId: 0, adds: [Self.point(-1)])], options: EditOptions())
        #expect(outcome.layers[0].addResults[0].success)
    }

    @Test func aCopyInManyFlushedStepsIsOneWholeSnapshotWhileEditsLand() async throws {
        let store = try makeTemporaryStore()
        _ = try store.schema.createService(pointLayerService(name: "Points"))
        for value in 0..<20 {
            _ = try store.edits.applyEdits(
                service: "Points", edits: [LayerEdits(layerId: 0, adds: (0..<50).map { Self.point(value * 50 + $0) })], options: EditOptions())
        }
        let stop = Atomic<Bool>(false)
        let writer = Task.detached {
            var value = 10_000
            while !stop.load(ordering: .relaxed) {
                value += 1
                _ = try store.edits.applyEdits(service: "Points", edits: [LayerEdits(layerId: 0, adds: [Self.point(value)])], options: EditOptions())
            }
        }
        let before = try Self.count(store)
        let copy = TestFolders.make("steps") + "/" + StoreDatabase.fileName
        // Four pages a step: the store's hundreds of pages take many steps, each flushed while
        // the next copies, with the writer committing between them.
        try SpatiaLiteBackup.copySnapshot(
            of: (store.directory as NSString).appendingPathComponent(StoreDatabase.fileName), to: copy, pagesPerStep: 4)
        stop.store(true, ordering: .relaxed)
        try await writer.value
        let after = try Self.count(store)
        let queue = try DatabaseQueue(path: copy)
        defer { try? queue.close() }
        let (report, pages) = try await queue.read { db in
            (try String.fetchAll(db, sql: "PRAGMA integrity_check"), try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0)
        }
        #expect(report == ["ok"] && pages > 100)
        let copied = try SpatiaLiteBackend(dataDirectory: (copy as NSString).deletingLastPathComponent)
        let kept = try Self.count(copied)
        #expect(kept >= before && kept <= after)
    }

    @Test func attachmentFilesTravelWithTheSnapshot() throws {
        let store = try makeTemporaryStore()
        var definition = pointLayerService(name: "Points")
        definition.layers[0].hasAttachments = true
        _ = try store.schema.createService(definition)
        let feature = GlobalID.make()
        let bytes = (0..<70_000).map { UInt8($0 % 251) }
        _ = try store.edits.applyEdits(
            service: "Points",
            edits: [
                LayerEdits(
                    layerId: 0, adds: [EditFeature(attributes: ["GlobalID": .string(feature)], geometry: ["x": 1, "y": 2])],
                    attachments: AttachmentEdits(adds: [
                        AttachmentEdit(
                            globalId: GlobalID.make(), parentGlobalId: feature, name: "a.bin", contentType: "application/octet-stream",
                            source: .data(bytes))
                    ]))
            ], options: EditOptions(useGlobalIds: true))
        let (folder, manifest) = try SpatiaLiteBackup.backup(data: store.directory, into: TestFolders.make("backups"))
        #expect(manifest.files.filter { $0.path.hasPrefix("attachments/") }.count == 1)
        let target = TestFolders.make("restored") + "/data"
        _ = try SpatiaLiteBackup.restore(folder, into: target)
        let restored = try SpatiaLiteBackend(dataDirectory: target)
        let listed = try FileManager.default.contentsOfDirectory(atPath: restored.attachmentsDirectory)
        #expect(listed.count == 1)
        let copy = try Data(contentsOf: URL(fileURLWithPath: restored.attachmentsDirectory + "/" + listed[0]))
        #expect([UInt8](copy) == bytes)
    }

    /// Issue 43: `restore --data` naming an existing file deleted it, and a backup's link
    /// (pointing out of the backup, with the right checksum) was restored as a link.
    @Test func aRestoreNeverReplacesAFileAndNeverRestoresALink() throws {
        let store = try makeTemporaryStore()
        _ = try store.schema.createService(pointLayerService(name: "Points"))
        let (folder, _) = try SpatiaLiteBackup.backup(data: store.directory, into: TestFolders.make("backups"))
        let scratch = TestFolders.make("restored")
        let file = scratch + "/precious.txt"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: BackupFailure.notAFolder(file)) { try SpatiaLiteBackup.restore(folder, into: file) }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me")
        try FileManager.default.createSymbolicLink(atPath: scratch + "/link", withDestinationPath: scratch + "/empty")
        try FileManager.default.createDirectory(atPath: scratch + "/empty", withIntermediateDirectories: true)
        #expect(throws: BackupFailure.notAFolder(scratch + "/link")) { try SpatiaLiteBackup.restore(folder, into: scratch + "/link") }

        // The database replaced by a link to an outside copy of itself: same bytes, same checksum.
        let outside = scratch + "/outside.sqlite"
        try FileManager.default.moveItem(atPath: folder + "/outpost.sqlite", toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: folder + "/outpost.sqlite", withDestinationPath: outside)
        #expect(throws: BackupFailure.notAPlainFile("outpost.sqlite")) { try SpatiaLiteBackup.restore(folder, into: scratch + "/c") }
        #expect(!FileManager.default.fileExists(atPath: scratch + "/c"))
        // An empty folder is restored into.
        try FileManager.default.removeItem(atPath: folder + "/outpost.sqlite")
        try FileManager.default.moveItem(atPath: outside, toPath: folder + "/outpost.sqlite")
        _ = try SpatiaLiteBackup.restore(folder, into: scratch + "/empty")
        #expect(FileManager.default.fileExists(atPath: scratch + "/empty/outpost.sqlite"))
    }

    @Test func aDamagedIncompleteOrMisplacedRestoreIsRefusedAndChangesNothing() throws {
        let store = try makeTemporaryStore()
        _ = try store.schema.createService(pointLayerService(name: "Points"))
        let (folder, _) = try SpatiaLiteBackup.backup(data: store.directory, into: TestFolders.make("backups"))
        let scratch = TestFolders.make("restored")
        #expect(throws: BackupFailure.notABackup(scratch)) { try SpatiaLiteBackup.restore(scratch, into: scratch + "/a") }
        // Into a folder that holds data.
        #expect(throws: BackupFailure.liveFolder(store.directory)) { try SpatiaLiteBackup.restore(folder, into: store.directory) }
        // One byte changed.
        let database = folder + "/outpost.sqlite"
        let handle = try #require(FileHandle(forUpdatingAtPath: database))
        try handle.seek(toOffset: 5000)
        let original = try handle.read(upToCount: 1)!
        try handle.seek(toOffset: 5000)
        try handle.write(contentsOf: Data([original[0] ^ 0xFF]))
        try handle.close()
        #expect(throws: BackupFailure.checksumMismatch("outpost.sqlite")) { try SpatiaLiteBackup.restore(folder, into: scratch + "/b") }
        #expect(!FileManager.default.fileExists(atPath: scratch + "/b"))
        try FileManager.default.removeItem(atPath: database)
        #expect(throws: BackupFailure.missingFile("outpost.sqlite")) { try SpatiaLiteBackup.restore(folder, into: scratch + "/c") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)
    }

    @Test func keepRotatesTheOldestBackupsOut() throws {
        let clock = ManualClock()
        let store = try makeTemporaryStore(clock: clock)
        let backups = TestFolders.make("backups")
        var names: [String] = []
        for _ in 0..<4 {
            clock.advance(milliseconds: 60_000)
            names.append(
                (try SpatiaLiteBackup.backup(data: store.directory, into: backups, keep: 2, clock: clock).folder as NSString).lastPathComponent)
        }
        try FileManager.default.createDirectory(atPath: backups + "/unrelated", withIntermediateDirectories: true)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: backups)) == Set(names.suffix(2) + ["unrelated"]))
        #expect(
            BackupRotation.expired(["outpost-backup-2", "x", "outpost-backup-1", "outpost-backup-3"], keep: 1) == [
                "outpost-backup-1", "outpost-backup-2",
            ])
        #expect(BackupRotation.name(at: 1_795_682_279_489) == "outpost-backup-20261126T083759.489Z")
    }

    @Test func aManifestRoundTripsAndNamesNothingOutsideItsFolder() throws {
        let manifest = BackupManifest(
            createdAt: 5, store: StoreIdentity(id: "abc", epoch: 2), generation: 9, migrations: ["v1"],
            files: [.init(path: "attachments/x.bin", size: 3, sha256: "00")])
        #expect(try BackupManifest(json: manifest.json) == manifest)
        // `..\0/manifest.json` (FuzzBackupManifest): C calls would stop at the NUL and name `..`.
        for path in ["../outside", "/etc/passwd", "a//b", "a/./b", "..\u{0}/manifest.json", "a\nb"] {
            var json = manifest.json
            if case .object(var object) = json {
                object["files"] = [["path": .string(path), "size": 1, "sha256": "00"]]
                json = .object(object)
            }
            #expect(throws: BackupFailure.self) { try BackupManifest(json: json) }
        }
        var newer = manifest
        newer.format = BackupManifest.currentFormat + 1
        #expect(throws: BackupFailure.self) { try BackupManifest(json: newer.json) }
    }

    /// The checksum is the file's plain SHA-256, as `sha256sum` gives it, across more than one
    /// read buffer and a short last piece.
    @Test func aFilesDigestIsItsSHA256AsSha256sumGivesIt() async throws {
        let path = TestFolders.make("digest") + "/file.bin"
        // Over two mapped pieces and not a whole number of them, nor of read buffers.
        let pattern = (0..<((1 << 20) + 13)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        var bytes = Data()
        while bytes.count < 2 * BackupManifest.mappedPiece + 7 { bytes.append(contentsOf: pattern) }
        try bytes.write(to: URL(fileURLWithPath: path))
        let expected = try await ExternalTool.run("/usr/bin/sha256sum", [path]).text.prefix(64)
        for digest in [try BackupManifest.digest(ofFileAt: path), try BackupManifest.digest(ofOwnFileAt: path)] {
            #expect(digest.size == Int64(bytes.count) && digest.sha256 == String(expected))
        }
        let empty = path + ".empty"
        try Data().write(to: URL(fileURLWithPath: empty))
        #expect(try BackupManifest.digest(ofOwnFileAt: empty).sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(throws: BackupFailure.missingFile(path + ".missing")) { try BackupManifest.digest(ofFileAt: path + ".missing") }
        #expect(throws: BackupFailure.missingFile(path + ".missing")) { try BackupManifest.digest(ofOwnFileAt: path + ".missing") }
    }

    @Test func aFailedFlushIsReportedWithItsErrno() throws {
        // /dev/null takes writes but cannot be flushed: fdatasync answers EINVAL.
        let flusher = try BackupFlusher(path: "/dev/null")
        flusher.stepWritten()
        flusher.stepWritten()
        #expect(throws: BackupFailure.fileSystem(path: "/dev/null", errno: EINVAL)) { try flusher.finish() }
        let file = TestFolders.make("flush") + "/copy"
        try Data("pages".utf8).write(to: URL(fileURLWithPath: file))
        let working = try BackupFlusher(path: file)
        working.stepWritten()
        try working.finish()
    }
}
