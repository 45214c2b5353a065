import Foundation
import OutpostSync
import OutpostTestSupport
import Testing

@testable import OutpostSpatiaLite
@testable import OutpostStorage

/// A restore given the folder `outpost backup` wrote into (issue 44): it names the backups
/// there, newest first with their time, and takes the newest with `--latest`.
@Suite struct BackupListingTests {
    @Test func theFolderOfBackupsListsThemNewestFirstAndLatestTakesTheNewest() throws {
        let clock = ManualClock()
        let store = try makeTemporaryStore(clock: clock)
        _ = try store.schema.createService(pointLayerService(name: "Points"))
        let backups = TestFolders.make("backups")
        var folders: [String] = []
        for _ in 0..<3 {
            clock.advance(milliseconds: 3_600_000)
            folders.append(try SpatiaLiteBackup.backup(data: store.directory, into: backups, clock: clock).folder)
        }
        // Neither an unfinished backup nor another folder is one.
        try FileManager.default.createDirectory(atPath: backups + "/.partial-outpost-backup-29990101T000000.000Z", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: backups + "/outpost-backup-29990101T000000.000Z", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: backups + "/unrelated", withIntermediateDirectories: true)

        let listed = SpatiaLiteBackup.backups(in: backups)
        #expect(listed.map(\.path) == folders.reversed())
        let start = ManualClock().milliseconds()  // 2026-01-01 00:00 UTC
        #expect(listed.map { (try? $0.manifest.get())?.createdAt } == [3, 2, 1].map { start + Int64($0) * 3_600_000 })
        #expect(
            listed[0].summary.hasSuffix("  2026-01-01 03:00:00 UTC  generation \((try? listed[0].manifest.get())?.generation ?? -1)"),
            "\(listed[0].summary)")

        // Without --latest: an error naming every backup, newest first, with its time.
        do {
            _ = try SpatiaLiteBackup.chooseBackup(backups, latest: false)
            Issue.record("a folder of backups was taken as one")
        } catch {
            let lines = error.description.split(separator: "\n").map(String.init)
            #expect(lines[0] == "\(backups) holds 3 backups, not one: name one, or add --latest for the newest.")
            #expect(lines.dropFirst().map { $0.trimmingCharacters(in: .whitespaces) } == listed.map(\.summary))
            #expect(lines[1].contains("03:00:00 UTC") && lines[3].contains("01:00:00 UTC"))
        }
        #expect(try SpatiaLiteBackup.chooseBackup(backups, latest: true) == folders[2])
        // A backup itself is itself, with or without --latest; a folder with none is left to the restore to refuse.
        #expect(try SpatiaLiteBackup.chooseBackup(folders[0], latest: false) == folders[0])
        #expect(try SpatiaLiteBackup.chooseBackup(folders[0], latest: true) == folders[0])
        let empty = TestFolders.make("none")
        #expect(try SpatiaLiteBackup.chooseBackup(empty, latest: true) == empty)

        let restored = TestFolders.make("restored") + "/data"
        let (manifest, _) = try SpatiaLiteBackup.restore(try SpatiaLiteBackup.chooseBackup(backups, latest: true), into: restored)
        #expect(manifest.createdAt == start + 3 * 3_600_000)
    }
}
