import Foundation
import GRDB
import OutpostWire

/// Which way a delta file travels (`docs/replica-format.md`, Deltas).
public enum ReplicaDeltaKind: String, Sendable, Equatable {
    /// The device's changes, uploaded for `synchronizeReplica` (`editsUploadFormat=sqlite`).
    case upload
    /// The server's answer to a sync with `dataFormat=sqlite`.
    case download
}

/// A change listed in `outpost_sync_changes`.
public enum DeltaOperation: String, Sendable, Equatable {
    case insert, update, delete
}

public enum DeltaItem: String, Sendable, Equatable {
    case feature, attachment
}

/// The one row of `outpost_sync_delta`: what makes a replica-shaped file a delta.
public struct ReplicaDeltaHeader: Sendable, Equatable {
    public var kind: ReplicaDeltaKind
    /// Download: the server generation the changes were read at. Upload: the replica
    /// generation the device held when it wrote the file.
    public var generation: Int64
    /// Download: the answer's `responseType` (`esriReplicaResponseType…`).
    public var responseType: String?

    public init(kind: ReplicaDeltaKind, generation: Int64, responseType: String? = nil) {
        self.kind = kind
        self.generation = generation
        self.responseType = responseType
    }
}

/// One row of `outpost_sync_edit_results`: the outcome of an uploaded edit, in a download delta.
public struct DeltaEditResult: Sendable, Equatable {
    public var layerId: Int
    public var item: DeltaItem
    public var operation: DeltaOperation
    public var result: EditResult

    public init(layerId: Int, item: DeltaItem, operation: DeltaOperation, result: EditResult) {
        self.layerId = layerId
        self.item = item
        self.operation = operation
        self.result = result
    }
}

extension ReplicaFileWriter {
    static func createDeltaTables(_ db: Database, header: ReplicaDeltaHeader) throws {
        try db.execute(
            sql: """
                CREATE TABLE outpost_sync_delta (
                    kind TEXT NOT NULL CHECK (kind IN ('upload', 'download')),
                    generation INTEGER NOT NULL,
                    response_type TEXT,
                    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                );
                CREATE TABLE outpost_sync_delta_layers (
                    layer_id INTEGER NOT NULL PRIMARY KEY,
                    since_gen INTEGER NOT NULL,
                    replaces_rows INTEGER NOT NULL CHECK (replaces_rows IN (0, 1))
                );
                CREATE TABLE outpost_sync_edit_results (
                    layer_id INTEGER NOT NULL,
                    item TEXT NOT NULL CHECK (item IN ('feature', 'attachment')),
                    operation TEXT NOT NULL CHECK (operation IN ('insert', 'update', 'delete')),
                    global_id TEXT,
                    object_id INTEGER,
                    success INTEGER NOT NULL CHECK (success IN (0, 1)),
                    error_code INTEGER,
                    error_description TEXT
                );
                """)
        try db.execute(
            sql: "INSERT INTO outpost_sync_delta(kind, generation, response_type) VALUES (?, ?, ?)",
            arguments: [header.kind.rawValue, header.generation, header.responseType])
        for table in ["outpost_sync_delta", "outpost_sync_delta_layers", "outpost_sync_edit_results"] {
            try registerExtension(db, table: table, column: nil, name: extensionName, definition: extensionDefinition, scope: "read-write")
        }
    }

    /// Records how a layer of a delta is to be applied: its changes since `sinceGen`, or
    /// (`replacesRows`, a snapshot) its rows replacing all the device holds.
    public func recordDeltaLayer(layerId: Int, sinceGen: Int64, replacesRows: Bool) throws {
        try queue.inDatabase { db in
            try db.execute(
                sql: "INSERT INTO outpost_sync_delta_layers(layer_id, since_gen, replaces_rows) VALUES (?, ?, ?)",
                arguments: [layerId, sinceGen, replacesRows])
        }
    }

    /// Sets the answer's `responseType`, known once the changes are written.
    public func setDeltaResponseType(_ responseType: String) throws {
        try queue.inDatabase { db in
            try db.execute(sql: "UPDATE outpost_sync_delta SET response_type = ?", arguments: [responseType])
        }
    }

    /// Records the outcome of uploaded edits (download deltas).
    public func recordEditResults(_ results: [DeltaEditResult]) throws {
        guard !results.isEmpty else { return }
        try queue.inDatabase { db in
            let statement = try db.makeStatement(
                sql: """
                    INSERT INTO outpost_sync_edit_results(layer_id, item, operation, global_id, object_id, success, error_code, error_description)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for entry in results {
                let r = entry.result
                try statement.execute(arguments: [
                    entry.layerId, entry.item.rawValue, entry.operation.rawValue, r.globalId, r.objectId,
                    r.success, r.error?.code, r.error?.description,
                ])
            }
        }
    }
}

extension DeltaEditResult {
    /// The rows of a layer's edit results, in the order of the JSON answer.
    public static func rows(_ results: LayerEditResults) -> [DeltaEditResult] {
        var rows: [DeltaEditResult] = []
        func add(_ item: DeltaItem, _ operation: DeltaOperation, _ list: [EditResult]) {
            rows += list.map { DeltaEditResult(layerId: results.layerId, item: item, operation: operation, result: $0) }
        }
        add(.feature, .insert, results.addResults)
        add(.feature, .update, results.updateResults)
        add(.feature, .delete, results.deleteResults)
        if let attachments = results.attachmentResults {
            add(.attachment, .insert, attachments.adds)
            add(.attachment, .update, attachments.updates)
            add(.attachment, .delete, attachments.deletes)
        }
        return rows
    }
}
