import Foundation
import GRDB
import OutpostWire

/// The bytes and description of an attachment to add or replace. `sourcePath` is a file
/// the store takes over (it is moved into the data folder, not copied).
public struct AttachmentInput: Sendable {
    public var name: String
    public var contentType: String
    public var keywords: String
    public var sourcePath: String
    public var size: Int
    public var globalId: String?

    public init(name: String, contentType: String, keywords: String = "", sourcePath: String, size: Int, globalId: String? = nil) {
        self.name = name
        self.contentType = contentType
        self.keywords = keywords
        self.sourcePath = sourcePath
        self.size = size
        self.globalId = globalId
    }
}

/// Where an attachment's bytes are.
public enum AttachmentContent: Sendable, Equatable {
    case bytes([UInt8])
    case file(String)
}

extension FeatureStore {
    /// Attachment names are file names: no path separators, no control characters, no
    /// leading dots (a name is never used as a path, but it is echoed in downloads).
    public static func sanitizedAttachmentName(_ name: String) -> String {
        var cleaned = String(name.unicodeScalars.filter { !$0.properties.isNoncharacterCodePoint && $0.value >= 0x20 && $0 != "/" && $0 != "\\" && $0 != "\"" }.map(Character.init))
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        cleaned = cleaned.trimmingWhitespace()
        if cleaned.count > 255 { cleaned = String(cleaned.suffix(255)) }
        return cleaned.isEmpty ? "attachment" : cleaned
    }

    /// Moves a spooled file into `attachments/` and returns its path relative to the data folder.
    func adoptAttachmentFile(_ source: String) throws -> String {
        try FileManager.default.createDirectory(atPath: attachmentsDirectory, withIntermediateDirectories: true)
        let relative = "attachments/\(UUID().uuidString.lowercased()).bin"
        try FileManager.default.moveItem(atPath: source, toPath: (directory as NSString).appendingPathComponent(relative))
        return relative
    }

    func removeDataFiles(_ relativePaths: [String]) {
        for path in relativePaths { try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(path)) }
    }

    private func attachmentLayer(service: String, layer layerId: Int) throws -> StoredLayer {
        let layer = try self.layer(service: service, id: layerId)
        guard layer.definition.hasAttachments else {
            throw ArcGISError(kind: .unsupported, code: 400, message: "Unable to complete operation.",
                              details: ["Layer \(layerId) does not have attachments."])
        }
        return layer
    }

    /// Adds an attachment to a feature. The file is moved in first and registered in one
    /// transaction stamped with a generation; if the transaction fails the file is removed.
    public func addAttachment(service: String, layer layerId: Int, parentObjectId: Int64, input: AttachmentInput,
                              context: EditContext = EditContext()) throws -> EditResult
    {
        let layer = try attachmentLayer(service: service, layer: layerId)
        try Self.checkCapabilities(try self.service(named: service).definition, attachmentAdd: true)
        var globalId = GlobalID.make()
        if let given = input.globalId {
            guard let normalized = GlobalID.normalize(given) else { return EditResult(objectId: nil, globalId: nil, error: .invalid("'\(given)' is not a GlobalID.")) }
            globalId = normalized
        }
        let relative = try adoptAttachmentFile(input.sourcePath)
        do {
            return try pool.write { db in
                guard let parent = try String.fetchOne(db, sql: "SELECT \(layer.definition.globalIdField.quotedDatabaseIdentifier) FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(layer.definition.objectIdField.quotedDatabaseIdentifier) = ?", arguments: [parentObjectId]) else {
                    throw EditError.missing("\(layer.definition.objectIdField) \(parentObjectId)")
                }
                if try Bool.fetchOne(db, sql: "SELECT count(*) > 0 FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE GLOBALID = ?", arguments: [globalId]) == true {
                    throw EditError.duplicateGlobalID(globalId)
                }
                let generation = try Self.allocateGeneration(db, replicaId: context.replicaId)
                try db.execute(sql: """
                    INSERT INTO \(layer.attachmentTable.quotedDatabaseIdentifier)
                        (GLOBALID, REL_GLOBALID, CONTENT_TYPE, ATT_NAME, DATA_SIZE, KEYWORDS, DATA, DATA_PATH, outpost_created_gen, outpost_gen, outpost_replica)
                    VALUES (?, ?, ?, ?, ?, ?, X'', ?, ?, ?, ?)
                    """, arguments: [globalId, parent, input.contentType, Self.sanitizedAttachmentName(input.name), input.size, input.keywords,
                                     relative, generation, generation, context.replicaId])
                return EditResult(objectId: db.lastInsertedRowID, globalId: globalId)
            }
        } catch let error as EditError {
            removeDataFiles([relative])
            return EditResult(objectId: nil, globalId: globalId, error: error)
        } catch {
            removeDataFiles([relative])
            throw error
        }
    }

    /// Replaces an attachment's bytes (and name and type); its GlobalID stays.
    public func updateAttachment(service: String, layer layerId: Int, parentObjectId: Int64, attachmentId: Int64,
                                 input: AttachmentInput, context: EditContext = EditContext()) throws -> EditResult
    {
        let layer = try attachmentLayer(service: service, layer: layerId)
        try Self.checkCapabilities(try self.service(named: service).definition, attachmentUpdate: true)
        let relative = try adoptAttachmentFile(input.sourcePath)
        do {
            let (result, oldPath) = try pool.write { db -> (EditResult, String?) in
                let existing = try Self.attachmentRow(layer: layer, parentObjectId: parentObjectId, attachmentId: attachmentId, db: db)
                let generation = try Self.allocateGeneration(db, replicaId: context.replicaId)
                try db.execute(sql: """
                    UPDATE \(layer.attachmentTable.quotedDatabaseIdentifier)
                    SET CONTENT_TYPE = ?, ATT_NAME = ?, DATA_SIZE = ?, DATA = X'', DATA_PATH = ?, outpost_gen = ?, outpost_replica = ?
                    WHERE ATTACHMENTID = ?
                    """, arguments: [input.contentType, Self.sanitizedAttachmentName(input.name), input.size, relative, generation,
                                     context.replicaId, attachmentId])
                return (EditResult(objectId: attachmentId, globalId: existing.globalId), existing.path)
            }
            if let oldPath { removeDataFiles([oldPath]) }
            return result
        } catch let error as EditError {
            removeDataFiles([relative])
            return EditResult(objectId: attachmentId, globalId: nil, error: error)
        } catch {
            removeDataFiles([relative])
            throw error
        }
    }

    /// Deletes attachments of one feature, leaving tombstones. Files go after the commit.
    public func deleteAttachments(service: String, layer layerId: Int, parentObjectId: Int64, attachmentIds: [Int64],
                                  rollbackOnFailure: Bool, context: EditContext = EditContext()) throws -> [EditResult]
    {
        let layer = try attachmentLayer(service: service, layer: layerId)
        try Self.checkCapabilities(try self.service(named: service).definition, attachmentUpdate: true)
        struct RolledBack: Error { var results: [EditResult] }
        do {
            let (results, paths) = try pool.write { db -> ([EditResult], [String]) in
                let generation = try Self.allocateGeneration(db, replicaId: context.replicaId)
                var results: [EditResult] = []
                var paths: [String] = []
                for id in attachmentIds {
                    do {
                        let existing = try Self.attachmentRow(layer: layer, parentObjectId: parentObjectId, attachmentId: id, db: db)
                        try db.execute(sql: """
                            INSERT OR REPLACE INTO outpost_tombstones(service, layer_id, kind, global_id, object_id, parent_global_id,
                                created_generation, generation, replica_id)
                            VALUES (?, ?, 'attachment', ?, ?, ?, ?, ?, ?)
                            """, arguments: [layer.serviceName, layer.definition.id, existing.globalId, id, existing.parentGlobalId,
                                             existing.createdGeneration, generation, context.replicaId])
                        try db.execute(sql: "DELETE FROM \(layer.attachmentTable.quotedDatabaseIdentifier) WHERE ATTACHMENTID = ?", arguments: [id])
                        if let path = existing.path { paths.append(path) }
                        results.append(EditResult(objectId: id, globalId: existing.globalId))
                    } catch let error as EditError {
                        results.append(EditResult(objectId: id, globalId: nil, error: error))
                    }
                }
                if rollbackOnFailure && results.contains(where: { !$0.success }) { throw RolledBack(results: results) }
                return (results, paths)
            }
            removeDataFiles(paths)
            return results
        } catch let rolledBack as RolledBack {
            return rolledBack.results.map { result in
                var r = result
                if r.error == nil { r.error = .rolledBack }
                return r
            }
        }
    }

    struct ExistingAttachment {
        var globalId: String
        var parentGlobalId: String
        var createdGeneration: Int64
        var path: String?
    }

    static func attachmentRow(layer: StoredLayer, parentObjectId: Int64, attachmentId: Int64, db: Database) throws -> ExistingAttachment {
        let definition = layer.definition
        guard let row = try Row.fetchOne(db, sql: """
            SELECT a.GLOBALID, a.REL_GLOBALID, a.outpost_created_gen, a.DATA_PATH FROM \(layer.attachmentTable.quotedDatabaseIdentifier) a
            JOIN \(layer.tableName.quotedDatabaseIdentifier) f ON f.\(definition.globalIdField.quotedDatabaseIdentifier) = a.REL_GLOBALID
            WHERE a.ATTACHMENTID = ? AND f.\(definition.objectIdField.quotedDatabaseIdentifier) = ?
            """, arguments: [attachmentId, parentObjectId]) else {
            throw EditError(code: 1019, description: "Attachment \(attachmentId) of feature \(parentObjectId) is missing.")
        }
        return ExistingAttachment(globalId: row[0], parentGlobalId: row[1], createdGeneration: row[2], path: row[3])
    }

    static func checkCapabilities(_ service: ServiceDefinition, attachmentAdd: Bool = false, attachmentUpdate: Bool = false) throws {
        let capabilities = Set(service.capabilities.map { $0.lowercased() })
        // ArcGIS: adding needs Create or Update; changing or deleting needs Update.
        let allowed = attachmentAdd ? (capabilities.contains("create") || capabilities.contains("update")) : capabilities.contains("update")
        if !allowed {
            throw ArcGISError(kind: .unsupported, code: 400, message: "Unable to complete operation.",
                              details: ["The service does not allow attachment edits (capabilities: \(service.capabilities.joined(separator: ",")))."])
        }
    }
}
