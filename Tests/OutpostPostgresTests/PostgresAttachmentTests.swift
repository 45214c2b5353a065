import Foundation
import OutpostPostgres
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

/// What several writers need of attachments on PostgreSQL (docs/postgres.md, "Attachments").
@Suite struct PostgresAttachmentTests {
    /// The parent is locked `FOR SHARE` while an attachment is added: an add that meets an
    /// uncommitted delete of its feature waits for it, then finds no parent — it never writes an
    /// attachment whose feature is gone (without the lock it reads the row the delete has not
    /// committed yet, and adds an orphan).
    @Test func anAttachmentAddedWhileItsFeatureIsBeingDeletedWaitsAndIsRefused() throws {
        let backend = try TestPostgres.makeBackend()
        defer { backend.close() }
        var service = pointLayerService(name: "Notes")
        service.layers[0].hasAttachments = true
        let layer = try backend.schema.createService(service).layers[0]
        let added = try backend.edits.applyEdits(
            service: "Notes", edits: [LayerEdits(layerId: 0, adds: [EditFeature(attributes: ["label": "a"], geometry: ["x": 1, "y": 1])])],
            options: EditOptions())
        let (objectId, globalId) = (try #require(added.layers[0].addResults[0].objectId), try #require(added.layers[0].addResults[0].globalId))
        let location = backend.pool.location
        let spool = TestFolders.file("note-\(UUID().uuidString)")
        try Data("late".utf8).write(to: URL(fileURLWithPath: spool))
        let answers = try onThreads(2) { index -> EditResult? in
            if index == 0 {
                let deleter = try PostgresConnection(location)
                try deleter.execute("BEGIN")
                try deleter.execute("DELETE FROM \"\(layer.tableName)\" WHERE \"GlobalID\" = '\(globalId)'")
                Thread.sleep(forTimeInterval: 0.6)
                try deleter.execute("COMMIT")
                return nil
            }
            Thread.sleep(forTimeInterval: 0.2)
            return try backend.edits.addAttachment(
                service: "Notes", layer: 0, parentObjectId: objectId,
                input: AttachmentInput(name: "late.txt", contentType: "text/plain", sourcePath: spool, size: 4))
        }
        #expect(answers[1]?.error?.code == 1019, "\(String(describing: answers[1]))")
        #expect(try backend.pool.query("SELECT count(*) FROM \(identifier: layer.attachmentTable)").first?.int64(0) == 0)
    }
}
