import Foundation
import OutpostStorage
import OutpostStore
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Synchronization
import Testing

/// Online backups of a data folder and their restore (docs/operations.md, "Backups").
@Suite struct BackupTests {
    static func point(_ value: Int) -> EditFeature {
        EditFeature(attributes: ["label": .string("p\(value)"), "value": .int(Int64(value))], geometry: ["x": 13.4, "y": 52.5])
    }

    static func count(_ store: FeatureStore) throws -> Int { try store.features.count(service: "Points", layer: 0) }

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
        let restored = try FeatureStore(dataDirectory: restoredFolder)
        let kept = try Self.count(restored)
        // Every edit acknowledged before the backup began is in it; none after the snapshot is.
        #expect(kept >= before && kept <= after)
        #expect(try restored.edits.currentGeneration() == manifest.generation)
        #expect(identity.id == (try store.identity()).id && identity.epoch == 1 && manifest.store.epoch == 0)
        #expect(try restored.identity() == identity)
        #expect(manifest.migrations.last == "v17-store-identity")
        // The restored store serves and takes edits.
        let outcome = try restored.edits.applyEdits(
            service: "Points", edits: [LayerEdits(layerId: 0, adds: [Self.point(-1)])], options: EditOptions())
        #expect(outcome.layers[0].addResults[0].success)
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
        let restored = try FeatureStore(dataDirectory: target)
        let listed = try FileManager.default.contentsOfDirectory(atPath: restored.attachmentsDirectory)
        #expect(listed.count == 1)
        let copy = try Data(contentsOf: URL(fileURLWithPath: restored.attachmentsDirectory + "/" + listed[0]))
        #expect([UInt8](copy) == bytes)
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
        for path in ["../outside", "/etc/passwd", "a//b", "a/./b"] {
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
    @Test func aFilesDigestIsItsSHA256AsSha256sumGivesIt() throws {
        let path = TestFolders.make("digest") + "/file.bin"
        let bytes = (0..<((5 << 19) + 7)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let expected = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(64)
        let digest = try BackupManifest.digest(ofFileAt: path)
        #expect(digest.size == Int64(bytes.count) && digest.sha256 == String(expected))
        #expect(throws: BackupFailure.self) { try BackupManifest.digest(ofFileAt: path + ".missing") }
    }
}
