import Foundation
import GRDB

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
