import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import OutpostGeoPackage
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostServer

/// Turns a replica file into the attack of the hardening issue: its attachment table's `data`
/// is a generated column of 900 MiB a row, and the change log lists `rows` attachment adds.
/// The file stays small; reading it naively allocates 900 MiB per row.
func plantZeroblobAttachments(in file: String, table: String = "Cities__ATTACH", layerId: Int = 0, parent: String, rows: Int) throws {
    let queue = try DatabaseQueue(path: file)
    try queue.write { db in
        let create = try #require(try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table]))
        try db.execute(sql: "DROP TABLE \(table.quotedDatabaseIdentifier)")
        try db.execute(sql: create.replacingOccurrences(of: "data BLOB NOT NULL,", with: "data BLOB AS (zeroblob(943718400)) VIRTUAL,"))
        for row in 0..<rows {
            let globalId = String(format: "{00000000-0000-0000-0000-%012d}", row + 1)
            try db.execute(
                sql: """
                    INSERT INTO \(table.quotedDatabaseIdentifier)(content_type, GLOBALID, REL_GLOBALID, ATT_NAME, DATA_SIZE) VALUES ('x/y', ?, ?, 'big.bin', 943718400)
                    """, arguments: [globalId, parent])
            try db.execute(
                sql: "INSERT INTO outpost_sync_changes(layer_id, item, global_id, operation) VALUES (?, 'attachment', ?, 'insert')",
                arguments: [layerId, globalId])
        }
    }
    try queue.close()
}

/// A GeoPackage replica of the Cities layer with bidirectional attachments, downloaded.
func createCitiesReplicaFile(_ client: any TestClientProtocol, name: String) async throws -> (answer: JSONValue, file: String) {
    let answer = try await post(
        client, "\(serviceURL)/createReplica",
        [
            ("f", "json"), ("replicaName", name), ("layers", "0"), ("geometry", "5,45,20,56"), ("geometryType", "esriGeometryEnvelope"),
            ("inSR", "4326"), ("syncModel", "perLayer"), ("dataFormat", "sqlite"), ("returnAttachments", "true"),
            ("attachmentsSyncDirection", "bidirectional"),
        ])
    return (answer, try await downloadFile(client, try #require(answer["URL"]?.stringValue)))
}

@Suite struct HostileUploadTests {
    @Test func aGeneratedColumnIsRefusedBeforeAnyRowIsReadAndChangesNothing() async throws {
        try await withFreshDemoApp { client, store in
            let (created, file) = try await createCitiesReplicaFile(client, name: "hostile")
            defer { try? FileManager.default.removeItem(atPath: file) }
            let parent = try await DatabaseQueue(path: file).read { db in
                try #require(try String.fetchOne(db, sql: "SELECT GlobalID FROM Cities LIMIT 1"))
            }
            // A genuine file passes the check the client makes of a downloaded replica; a
            // virtual table that is no geometry R-tree does not.
            try ReplicaFile.checkUntrusted(file)
            let planted = file + ".virtual.gpkg"
            try FileManager.default.copyItem(atPath: file, toPath: planted)
            defer { try? FileManager.default.removeItem(atPath: planted) }
            try await DatabaseQueue(path: planted).write { db in try db.execute(sql: "CREATE VIRTUAL TABLE evil USING rtree(id, a, b)") }
            #expect(throws: ReplicaChanges.Failure.self) { try ReplicaFile.checkUntrusted(planted) }
            try plantZeroblobAttachments(in: file, parent: parent, rows: 4)
            #expect(throws: ReplicaChanges.Failure.self) { try ReplicaFile.checkUntrusted(file) }
            let size = ((try FileManager.default.attributesOfItem(atPath: file))[.size] as? NSNumber)?.intValue ?? 0
            #expect(size < 4 * 1024 * 1024)

            // The reader refuses it from the schema: no row is read.
            #expect(throws: ReplicaChanges.Failure.self) { try ReplicaChanges.read(file) }
            do { _ = try ReplicaChanges.read(file) } catch { #expect(String(describing: error).contains("generated or hidden columns"), "\(error)") }

            // Through the server: a clear 400, and nothing changed.
            let generation = try store.edits.currentGeneration()
            let itemID = try await uploadFile(client, file)
            let answer = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", try #require(created["replicaID"]?.stringValue)), ("editsUploadID", itemID),
                    ("editsUploadFormat", "sqlite"),
                    ("syncLayers", #"[{"id":0,"serverGen":\#(try #require(created["layerServerGens"]?[0]?["serverGen"]?.int64Value))}]"#),
                ])
            #expect(answer["error"]?["code"] == 400, "\(answer)")
            #expect(try store.edits.currentGeneration() == generation)
        }
    }

    @Test func noValueOrSumOfValuesMayExceedWhatTheFileHolds() async throws {
        // A plain table whose rows are made up by a default expression would be one way; a
        // value longer than the file (written, then the file truncated to lie) is refused by
        // SQLite itself under the per-value limit. Here: a value larger than the limit given.
        try await withFreshDemoApp { client, _ in
            let (_, file) = try await createCitiesReplicaFile(client, name: "big")
            defer { try? FileManager.default.removeItem(atPath: file) }
            let queue = try DatabaseQueue(path: file)
            try await queue.write { db in
                let city = try #require(try String.fetchOne(db, sql: "SELECT GlobalID FROM Cities LIMIT 1"))
                try db.execute(
                    sql:
                        "INSERT INTO Cities__ATTACH(data, content_type, REL_GLOBALID, ATT_NAME, DATA_SIZE) VALUES (randomblob(300000), 'x/y', ?, 'a.bin', 300000)",
                    arguments: [city])
            }
            try queue.close()
            #expect(try ReplicaChanges.read(file).layers.first?.edits.attachments?.adds.count == 1)
            let limits = UntrustedFileLimits(maximumValueBytes: 100_000)
            #expect(throws: ReplicaChanges.Failure.invalid("a value is larger than the file holds")) { try ReplicaChanges.read(file, limits: limits) }
            #expect(throws: ReplicaChanges.Failure.self) { try ReplicaChanges.read(file, limits: UntrustedFileLimits(maximumChanges: 0)) }
            #expect(throws: ReplicaChanges.Failure.self) { try ReplicaChanges.read(file, limits: UntrustedFileLimits(maximumFileBytes: 1024)) }
        }
    }
}
