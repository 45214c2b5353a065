import Foundation
import GRDB
import OutpostClient
import OutpostGeoPackage
import OutpostGeocoding
import OutpostTestSupport
import Testing

/// A locator file handed to a device is opened as untrusted (docs/geocoding.md, "Offline"):
/// read-only and defensively, and refused unless it holds exactly a locator file's tables.
@Suite struct LocatorFileTests {
    /// A valid file changed by `change` (on a writable connection), then opened.
    static func opening(_ change: String) throws -> LocatorFile.Failure? {
        let path = "\(TestFolders.make("hostile-locator"))/bad.locator"
        try LocatorFileFixtures.write(path)
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: change) }
        try queue.close()
        do {
            _ = try LocatorFile(path: path)
            return nil
        } catch {
            return error
        }
    }

    @Test func aWholeFileOpensAndAnswers() throws {
        let path = "\(TestFolders.make("locator-file"))/one.locator"
        try LocatorFileFixtures.write(path, name: "Hills")
        let file = try LocatorFile(path: path)
        #expect(file.name == "Hills" && file.entryCount == 1 && file.builtAt == 7)
        #expect(try file.entry(kind: .pointAddress, id: "1")?.display.street == "Hill Street")
    }

    @Test(arguments: [
        ("a view", "CREATE VIEW v AS SELECT 1"),
        ("a trigger", "CREATE TRIGGER t AFTER INSERT ON outpost_locators BEGIN SELECT 1; END"),
        ("another table", "CREATE TABLE extra(x)"),
        ("another virtual table", "CREATE VIRTUAL TABLE more USING fts5(tokens)"),
        ("an index of its own", "CREATE INDEX mine ON outpost_locator_entries(kind)"),
        ("another application id", "PRAGMA application_id = 1"),
        ("a later format", "PRAGMA user_version = 2"),
        ("two locators", "INSERT INTO outpost_locators VALUES ('Two', '{}', 0)"),
        ("no locator", "DELETE FROM outpost_locators"),
        ("a definition that is no stored locator's", "UPDATE outpost_locators SET definition = '[1]'"),
        ("a table declared otherwise", "ALTER TABLE outpost_locators ADD COLUMN more TEXT"),
    ])
    func aFileWithMoreOrOtherThanALocatorsTablesIsRefused(_ what: String, _ change: String) throws {
        let failure = try Self.opening(change)
        #expect(failure != nil, "\(what) was accepted")
    }

    @Test func bytesThatAreNoSQLiteOrATruncatedFileAreRefused() throws {
        let folder = TestFolders.make("locator-bytes")
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: "\(folder)/text.locator"))
        #expect(throws: LocatorFile.Failure.self) { try LocatorFile(path: "\(folder)/text.locator") }
        try LocatorFileFixtures.write("\(folder)/whole.locator")
        let whole = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/whole.locator"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: "\(folder)/half.locator"))
        #expect(throws: LocatorFile.Failure.self) { try LocatorFile(path: "\(folder)/half.locator") }
        #expect(throws: LocatorFile.Failure.self) { try LocatorFile(path: "\(folder)/absent.locator") }
        // The task says which file, as a ClientError.
        #expect(throws: ClientError.self) { try LocatorTask(locatorFile: "\(folder)/half.locator") }
    }

    /// A file in WAL mode is refused before SQLite opens it: no `-wal` or `-shm` is left beside it.
    @Test func aFileInWALModeIsRefusedAndNothingIsLeftBesideIt() throws {
        let path = "\(TestFolders.make("locator-wal"))/wal.locator"
        try LocatorFileFixtures.write(path)
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try queue.close()
        for sidecar in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + sidecar) }
        #expect(throws: LocatorFile.Failure.invalid("it is in WAL mode, which a locator file never is")) { try LocatorFile(path: path) }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal") && !FileManager.default.fileExists(atPath: path + "-shm"))
    }

    /// Pages damaged after the file was opened and checked are reported as the file's failure.
    @Test func pagesDamagedAfterTheCheckAreTheFilesFailureNotSQLites() throws {
        let path = "\(TestFolders.make("locator-damaged"))/late.locator"
        try LocatorFileFixtures.write(path)
        let file = try LocatorFile(path: path)
        let size = try #require((try FileManager.default.attributesOfItem(atPath: path))[.size] as? Int)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xFF, count: size - 4096))
        try handle.close()
        #expect(throws: LocatorFile.Failure.self) {
            _ = try file.entry(kind: .pointAddress, id: "1")
            _ = try file.entries(in: LocatorBox(around: PlanarPoint(x: 0, y: 0), radius: 1e9)!, limit: 10)
        }
    }
}
