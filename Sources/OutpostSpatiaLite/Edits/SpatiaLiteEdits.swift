import Foundation
import GRDB
import OutpostGeometry
import OutpostSQLite
import OutpostStorage
import OutpostSync
import OutpostWire

/// Edit transactions: features and attachments, each stamped with one generation (`FeatureEditing`, `AttachmentEditing`).
public struct SpatiaLiteEdits: FeatureEditing, AttachmentEditing, StoreRepository {
    public let database: StoreDatabase
}

extension SpatiaLiteEdits {
    /// Attachment bytes in this store's data folder (`AttachmentFiles`, shared with PostgreSQL).
    var attachmentFiles: AttachmentFiles { AttachmentFiles(directory: directory, temporaryDirectory: temporaryDirectory) }

    /// Writes inline `data` and copies `uploadId` items into `attachments/`, keyed by the
    /// attachment's GlobalID.
    func prepareAttachmentFiles(
        _ edits: [LayerEdits], service: String,
        files: [String: (path: String, size: Int)] = [:]
    ) throws -> [String: PreparedAttachmentFile] {
        try attachmentFiles.prepare(edits, files: files) { try uploads.copyOfUpload(service: service, itemID: $0) }
    }
}

/// Per-transaction caches of an edit session: insert plans per layer and the GlobalID generator.
final class EditSessionCache {
    struct InsertPlan {
        var columns: [String]
        var position: [String: Int]
        var binder: RawStatementBinder
    }

    var plans: [String: InsertPlan] = [:]
    /// Per layer table: the statement copying a row into its history (versioned services).
    var archives: [String: String] = [:]
    // One system-random seed per transaction (see insertRows): no getrandom call per id.
    var generator: SeededGenerator = {
        var system = SystemRandomNumberGenerator()
        return SeededGenerator(seed: system.next())
    }()
}

extension SpatiaLiteEdits {
    /// Allocates the next generation in the caller's transaction: it becomes visible only
    /// when that transaction commits, together with the rows it stamps.
    static func allocateGeneration(_ db: Database, replicaId: String?, at now: Int64) throws -> Int64 {
        try db.execute(
            sql: "INSERT INTO outpost_generations(created_at, replica_id) VALUES (?, ?)",
            arguments: [now, replicaId])
        return db.lastInsertedRowID
    }

    /// The latest committed generation.
    public func currentGeneration() throws -> Int64 {
        try pool.read(Self.newestGeneration)
    }

    /// The newest generation `db` sees (in a read transaction: the newest committed when it began).
    static func newestGeneration(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT coalesce(max(generation), 0) FROM outpost_generations") ?? 0
    }

    /// Applies adds, updates and deletes to one or more layers of a service in one
    /// transaction stamped with one generation.
    ///
    /// With `rollbackOnFailure` every result fails when any edit fails (the failing edits
    /// keep their error, the others report "Operation rolled back.") and nothing is written.
    /// Without it each edit runs in its own savepoint: a failed edit leaves no trace and the
    /// others commit. Request-level problems (unknown layer, missing capability) throw.
    public func applyEdits(
        service serviceName: String, edits: [LayerEdits], options: EditOptions,
        context: EditContext = EditContext()
    ) throws -> EditOutcome {
        try applyEdits(service: serviceName, edits: edits, options: options, context: context, files: [:])
    }

    /// `files`: attachment bytes already on disk (spooled uploads), by attachment GlobalID;
    /// they are moved in like inline data and removed if not registered.
    public func applyEdits(
        service serviceName: String, edits: [LayerEdits], options: EditOptions, context: EditContext,
        files: [String: (path: String, size: Int)]
    ) throws -> EditOutcome {
        try runEditTransaction(service: serviceName, edits: edits, options: options, context: context, files: files) { editor, layers in
            try zip(edits, layers).map { layerEdits, layer in try editor.apply(layerEdits, to: layer) }
        }
    }

    /// The frame of every edit: checks the layers and capabilities, puts attachment bytes in
    /// place, opens one write transaction with one generation, runs `body`, and commits
    /// unless `rollbackOnFailure` and an edit failed. `body` gets the session and the layers
    /// of `edits`, in order.
    func runEditTransaction(
        service serviceName: String, edits: [LayerEdits], options: EditOptions, context: EditContext,
        files: [String: (path: String, size: Int)] = [:],
        body: (EditSession, [StoredLayer]) throws -> [LayerEditResults]
    ) throws -> EditOutcome {
        let service = try self.service(named: serviceName)
        var layers: [StoredLayer] = []
        for layerEdits in edits {
            guard let layer = service.layers.first(where: { $0.definition.id == layerEdits.layerId }) else {
                throw StoreError.layerNotFound(service: serviceName, layer: layerEdits.layerId)
            }
            try EditRules.checkCapabilities(service.definition, edits: layerEdits)
            layers.append(layer)
        }
        for (layerEdits, layer) in zip(edits, layers) where layerEdits.attachments?.isEmpty == false {
            try layer.checkHasAttachments()
        }
        let moment = clock.milliseconds()
        // Attachment bytes are put in place before the transaction (the writer lock is never
        // held while files are written); files the transaction does not register are removed.
        let prepared = try prepareAttachmentFiles(edits, service: serviceName, files: files)
        var keptFiles = Set<String>()
        defer { removeDataFiles(prepared.values.map(\.path).filter { !keptFiles.contains($0) }) }
        struct RolledBack: Error { var results: [LayerEditResults] }
        do {
            let (outcome, removedFiles, registered) = try pool.write { db -> (EditOutcome, [String], Set<String>) in
                let generation = try Self.allocateGeneration(db, replicaId: context.replicaId, at: moment)
                let removals = AttachmentFileChanges()
                let editor = EditSession(
                    db: db, generation: generation, moment: moment, context: context, options: options,
                    removals: removals, preparedFiles: prepared)
                let results = try body(editor, layers)
                let failed = results.contains { $0.all.contains { !$0.success } }
                if failed && options.rollbackOnFailure {
                    throw RolledBack(results: results)
                }
                let committed = results.contains { $0.all.contains(where: \.success) }
                for layer in layers {
                    try db.execute(
                        sql: "UPDATE outpost_layers SET last_edit_date = ? WHERE service = ? AND layer_id = ?",
                        arguments: [moment, layer.serviceName, layer.definition.id])
                }
                return (
                    EditOutcome(layers: results, editMoment: moment, generation: committed ? generation : nil),
                    removals.removedAtCommit, removals.registered
                )
            }
            keptFiles = registered
            removeDataFiles(removedFiles)
            database.editsApplied.add(outcome.layers.reduce(0) { $0 + $1.all.count(where: \.success) }, ordering: .relaxed)
            return outcome
        } catch let rolledBack as RolledBack {
            var results = rolledBack.results
            for index in results.indices { results[index].markRolledBack() }
            return EditOutcome(layers: results, editMoment: moment, generation: nil)
        }
    }
}
