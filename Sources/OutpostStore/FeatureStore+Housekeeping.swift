import Foundation
import GRDB
import OutpostSync

/// Files a previous run left behind.
public struct OrphanFileSweep: Sendable, Equatable {
    /// Attachment files no attachment row names (written before an edit transaction that
    /// never committed: the process died in between).
    public var attachmentFiles = 0
    /// Spooled request bodies and inline attachment data of requests that never finished.
    public var temporaryFiles = 0

    public init(attachmentFiles: Int = 0, temporaryFiles: Int = 0) {
        self.attachmentFiles = attachmentFiles
        self.temporaryFiles = temporaryFiles
    }
}

extension FeatureStore {
    /// Removes attachment files no committed row refers to and everything under `tmp/`.
    ///
    /// Contract: call it before serving (at start-up), while no edit is in flight; an edit
    /// writes its attachment files before its transaction commits, and a sweep between the
    /// two would take them.
    @discardableResult
    public func removeOrphanFiles() throws -> OrphanFileSweep {
        var sweep = OrphanFileSweep()
        let manager = FileManager.default
        let referenced: Set<String> = try pool.read { db in
            var paths = Set<String>()
            for service in catalog.services {
                for layer in service.layers where layer.definition.hasAttachments {
                    for path in try String.fetchAll(db, sql: "SELECT DATA_PATH FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE DATA_PATH IS NOT NULL") {
                        paths.insert(path)
                    }
                }
            }
            return paths
        }
        for name in (try? manager.contentsOfDirectory(atPath: attachmentsDirectory)) ?? [] where !referenced.contains("attachments/\(name)") {
            try manager.removeItem(atPath: (attachmentsDirectory as NSString).appendingPathComponent(name))
            sweep.attachmentFiles += 1
        }
        for name in (try? manager.contentsOfDirectory(atPath: temporaryDirectory)) ?? [] {
            try manager.removeItem(atPath: (temporaryDirectory as NSString).appendingPathComponent(name))
            sweep.temporaryFiles += 1
        }
        return sweep
    }
}

/// What `compact` removed.
public struct CompactReport: Sendable, Equatable {
    /// Tombstones at or below the oldest generation any registered replica syncs from.
    public var tombstones = 0
    /// Retry receipts of replicas no longer registered.
    public var receipts = 0
}

extension FeatureStore {
    /// Every registered replica of every service.
    public func allReplicas() throws -> [ReplicaDefinition] {
        try catalog.services.flatMap { try replicas(service: $0.definition.name) }
    }

    /// Purges change tracking no registered replica still needs (per service, below the
    /// oldest generation its replicas sync from) and receipts of unregistered replicas; the
    /// conflict log is kept. Contract: a copy of a replica unregistered before the purge can
    /// no longer be registered (`registerExistingData`) to sync deletes it never received —
    /// create a new replica instead, as ArcGIS asks after its own clean-ups.
    @discardableResult
    public func compact() throws -> CompactReport {
        var report = CompactReport()
        for service in catalog.services {
            let name = service.definition.name
            let replicas = try replicas(service: name)
            try pool.write { db in
                let oldest = ReplicaHousekeeping.oldestGenerationNeeded(by: replicas, current: try Self.newestGeneration(db))
                try db.execute(sql: "DELETE FROM outpost_tombstones WHERE service = ? AND generation <= ?", arguments: [name, oldest])
                report.tombstones += db.changesCount
            }
        }
        try pool.write { db in
            try db.execute(sql: "DELETE FROM outpost_sync_receipts WHERE replica_id NOT IN (SELECT replica_id FROM outpost_replicas)")
            report.receipts = db.changesCount
        }
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        return report
    }
}
