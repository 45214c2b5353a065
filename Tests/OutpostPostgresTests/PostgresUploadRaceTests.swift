import Foundation
import OutpostPostgres
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// The sync upload's seam on PostgreSQL under a concurrent writer (docs/postgres.md, "Sync"):
/// what the engine asks of `SyncUploadRecords.insert` when another writer inserts a GlobalID
/// between the upload's read and its insert.
extension PostgresSyncRaceTests {
    /// A device adds a feature whose GlobalID an online add is inserting at that moment: the
    /// upload reads the GlobalID absent, its insert waits for the online add and collides
    /// with it once that commits; the insert is undone alone (`GlobalIDInsertedMeanwhile`)
    /// and the edit decided again against the online row: an update of it (last in wins),
    /// the online values logged as overwritten. The online add is held open (`HeldWrite`), so
    /// the two interleave the same way every run; an add without its GlobalID puts the upload
    /// on its savepoint path from the start.
    @Test func anAddMeetingAGlobalIDInsertedMeanwhileIsDecidedAgainAgainstThatRow() throws {
        let location = try TestPostgres.makeDatabase(label: "inserted")
        let backend = try PostgresBackend(location, maximumConnections: 4)
        try backend.schema.createService(pointLayerService(name: "Points"))
        let layer = try backend.schema.service(named: "Points").layers[0]
        let replica = try Self.createReplica(backend, name: "device")
        let held = try HeldWrite("INSERT", on: layer.tableName, key: 4343, location: location)
        let globalId = GlobalID.make()
        var anonymous = Self.point("no GlobalID")
        anonymous.attributes["GlobalID"] = nil
        let plan = try Self.plan(replica, edits: LayerEdits(layerId: 0, adds: [anonymous, Self.point("device", globalId: globalId)]))
        // The online add, held open after its row is in; the device's upload once it holds;
        // and, once the upload's insert waits for the online one, the online add let go.
        let outcomes = try onThreads(3) { index -> SyncUploadOutcome? in
            switch index {
            case 0:
                _ = try backend.edits.applyEdits(
                    service: "Points", edits: [LayerEdits(layerId: 0, adds: [Self.point("online", globalId: globalId)])], options: EditOptions())
            case 1:
                try held.waitFor("advisory")
                return try backend.sync.applySyncUpload(plan, fingerprint: [1])
            default:
                try held.waitFor("advisory")
                try held.waitFor("transactionid")
                try held.release()
            }
            return nil
        }
        let upload = try #require(outcomes[1])
        let adds = try #require(upload.results.first?.addResults)
        #expect(adds.map(\.success) == [false, true], "\(adds)")
        let online = try held.control.query(
            """
            SELECT \(unescaped: PostgresQuery.quoted(identifier: layer.definition.objectIdField)), label
            FROM \(unescaped: PostgresQuery.quoted(identifier: layer.tableName)) WHERE "GlobalID" = \(globalId)
            """)
        #expect(online.rows.count == 1)
        #expect(adds.last?.objectId == (try online.first?.int64(0)), "the device's add became an update of the online row")
        #expect(online.first?.string(1) == "device")
        let conflicts = try backend.conflicts.conflicts(service: "Points", replicaId: replica.id)
        #expect(conflicts.map(\.overwrittenChange) == ["update"], "the online add it overwrote is in the conflict log")
        #expect(upload.conflictsRecorded == 1)
    }
}
