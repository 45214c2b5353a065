import Foundation
import GRDB
import OutpostClient
import OutpostGeoPackage
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
}
