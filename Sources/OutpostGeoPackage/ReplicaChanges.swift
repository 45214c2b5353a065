import Foundation
import GRDB
import OutpostGeometry
import OutpostSync
import OutpostWire

/// The changes a replica-shaped file carries, as edits: a delta (upload or download), or a
/// replica file's own change log netted per GlobalID (`docs/replica-format.md`, Deltas).
///
/// The file may come from anyone (an upload), so it is read defensively (`UntrustedFile`):
/// opened read-only in SQLite's defensive mode with `trusted_schema` off, a file with a
/// generated or hidden column is refused before any row is read, only real tables are read
/// (never a view or a virtual table a file could plant under a listed name), names come from
/// the file but are quoted, no SQL function of ours is registered, and no value or sum of
/// values may exceed what the file holds.
public struct ReplicaChanges: Sendable, Equatable {
    public struct Layer: Sendable, Equatable {
        public var layerId: Int
        /// The layer's generation as the file records it (`outpost_sync_layers.server_gen`).
        public var serverGen: Int64
        /// Delta files: the generation the changes start after.
        public var sinceGen: Int64?
        /// A snapshot: `edits.adds` are all the layer's rows and replace what the device holds.
        public var replacesRows: Bool
        /// Adds and updates carry every column of the row (the OBJECTID included, dates as
        /// epoch milliseconds, the geometry as Esri JSON with its spatial reference);
        /// deletes are by GlobalID; attachments carry their bytes.
        public var edits: LayerEdits
    }

    public var replicaId: String
    /// nil for a replica file (its change log was netted).
    public var delta: ReplicaDeltaHeader?
    public var layers: [Layer]
    /// Download deltas: the outcome of the edits the sync uploaded.
    public var editResults: [DeltaEditResult]
    /// The highest `change_id` read: a device removes its log rows up to it once the server
    /// has acknowledged them.
    public var lastChangeId: Int64

    /// Every feature and attachment change, counted.
    public var changeCount: Int {
        layers.reduce(0) { $0 + $1.edits.count + ($1.edits.attachments.map { $0.adds.count + $0.updates.count + $0.deletes.count } ?? 0) }
    }

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case unreadable(String)
        case invalid(String)

        /// The reason alone, without what kind of file was expected.
        public var reason: String {
            switch self {
            case .unreadable(let reason), .invalid(let reason): reason
            }
        }

        public var description: String {
            switch self {
            case .unreadable(let reason): "not a readable GeoPackage: \(reason)"
            case .invalid(let reason): "not a valid Outpost replica or delta: \(reason)"
            }
        }
    }

    /// Reads the file at `path`. Throws `Failure` for anything that is not a replica or
    /// delta this build understands.
    public static func read(_ path: String, limits: UntrustedFileLimits = .generous) throws(Failure) -> ReplicaChanges {
        try UntrustedFile.read(path, limits: limits) { db, budget in try read(db, budget: budget) }
    }

    static func read(_ db: Database, budget: ReadBudget) throws -> ReplicaChanges {
        let schema = try FileSchema(db)
        for table in ["outpost_sync_replica", "outpost_sync_layers", "outpost_sync_changes"] {
            guard schema.isPlainTable(table) else { throw Failure.invalid("no table \(table)") }
        }
        let info = try ReplicaFile.info(db)
        var delta: ReplicaDeltaHeader?
        var deltaLayers: [Int: (since: Int64, replaces: Bool)] = [:]
        var editResults: [DeltaEditResult] = []
        if schema.isPlainTable("outpost_sync_delta") {
            guard let row = try Row.fetchOne(db, sql: "SELECT kind, generation, response_type FROM outpost_sync_delta"),
                let kind = ReplicaDeltaKind(rawValue: try row.untrusted(0) ?? "")
            else { throw Failure.invalid("outpost_sync_delta has no valid row") }
            delta = ReplicaDeltaHeader(kind: kind, generation: try row.untrusted(1) ?? 0, responseType: try row.untrusted(2))
            if schema.isPlainTable("outpost_sync_delta_layers") {
                for row in try Row.fetchAll(db, sql: "SELECT layer_id, since_gen, replaces_rows FROM outpost_sync_delta_layers") {
                    deltaLayers[try row.required(0)] = (try row.required(1), try row.required(2))
                }
            }
            if schema.isPlainTable("outpost_sync_edit_results") {
                editResults = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT layer_id, item, operation, global_id, object_id, success, error_code, error_description
                        FROM outpost_sync_edit_results ORDER BY rowid
                        """
                ).compactMap { row in
                    guard let item = DeltaItem(rawValue: try row.untrusted(1) ?? ""),
                        let operation = DeltaOperation(rawValue: try row.untrusted(2) ?? "")
                    else { return nil }
                    let success: Bool = try row.untrusted(5) ?? false
                    let error = success ? nil : EditError(code: try row.untrusted(6) ?? 1000, description: try row.untrusted(7) ?? "")
                    return DeltaEditResult(
                        layerId: try row.required(0), item: item, operation: operation,
                        result: EditResult(objectId: try row.untrusted(4), globalId: try row.untrusted(3), error: error))
                }
            }
        }

        // The log, oldest first, netted per (layer, item, GlobalID) in order of first change.
        struct Key: Hashable {
            var layerId: Int
            var item: DeltaItem
            var globalId: String
        }
        var order: [Key] = []
        var operations: [Key: [LocalOperation]] = [:]
        // The GlobalID as the row holds it (the log copies it): looked up as is, the index serves.
        var stored: [Key: String] = [:]
        var lastChangeId: Int64 = 0
        let log = try Row.fetchCursor(db, sql: "SELECT change_id, layer_id, item, global_id, operation FROM outpost_sync_changes ORDER BY change_id")
        while let row = try log.next() {
            try budget.countChange()
            let changeId: Int64 = try row.untrusted(0) ?? 0
            lastChangeId = max(lastChangeId, changeId)
            let text: String? = try row.untrusted(3)
            guard let item = DeltaItem(rawValue: try row.untrusted(2) ?? ""), let operation = LocalOperation(rawValue: try row.untrusted(4) ?? ""),
                let text, let globalId = GlobalID.normalize(text), let layerId: Int = try row.untrusted(1)
            else { throw Failure.invalid("change \(changeId) is malformed") }
            let key = Key(layerId: layerId, item: item, globalId: globalId)
            if operations[key] == nil {
                order.append(key)
                stored[key] = text
            }
            operations[key, default: []].append(operation)
        }

        var layers: [Layer] = []
        for fileLayer in info.layers {
            let table = try LayerTable(fileLayer, schema: schema, budget: budget, db: db)
            var edits = LayerEdits(layerId: fileLayer.layerId)
            var attachments = AttachmentEdits()
            let replaces = deltaLayers[fileLayer.layerId]?.replaces ?? false
            if replaces {
                edits.adds = try table.allFeatures(db)
                attachments.adds = try table.allAttachments(db)
            } else {
                for key in order where key.layerId == fileLayer.layerId {
                    guard let net = SyncRules.net(operations[key] ?? []) else { continue }
                    switch (key.item, net) {
                    case (.feature, .delete):
                        edits.deletes.append(.globalId(key.globalId))
                    case (.feature, .add), (.feature, .update):
                        guard let feature = try table.feature(globalId: stored[key] ?? key.globalId, db) else {
                            throw Failure.invalid("the \(net == .add ? "insert" : "update") of \(key.globalId) in \(fileLayer.tableName) has no row")
                        }
                        if net == .add { edits.adds.append(feature) } else { edits.updates.append(feature) }
                    case (.attachment, .delete):
                        attachments.deletes.append(key.globalId)
                    case (.attachment, .add), (.attachment, .update):
                        guard let attachment = try table.attachment(globalId: stored[key] ?? key.globalId, db) else {
                            throw Failure.invalid("the change of attachment \(key.globalId) in \(fileLayer.name) has no row")
                        }
                        if net == .add { attachments.adds.append(attachment) } else { attachments.updates.append(attachment) }
                    }
                }
            }
            if !attachments.isEmpty { edits.attachments = attachments }
            layers.append(
                Layer(
                    layerId: fileLayer.layerId, serverGen: fileLayer.serverGen, sinceGen: deltaLayers[fileLayer.layerId]?.since,
                    replacesRows: replaces, edits: edits))
        }
        return ReplicaChanges(replicaId: info.replicaId, delta: delta, layers: layers, editResults: editResults, lastChangeId: lastChangeId)
    }
}

/// The file's own tables, from `sqlite_master`.
private struct FileSchema {
    private var plainTables: Set<String> = []

    /// A virtual table runs a module's code on every read: never one of ours to read.
    init(_ db: Database) throws {
        plainTables = Set(try UntrustedFile.tables(db).plain.map { $0.lowercased() })
    }

    func isPlainTable(_ name: String) -> Bool { plainTables.contains(name.lowercased()) }
}

/// Reads one layer's rows (and attachments) of a replica-shaped file as edits.
private struct LayerTable {
    let layer: ReplicaFileInfo.Layer
    let columns: [(name: String, isDate: Bool, isBlob: Bool)]
    let geometryColumn: String?
    let wkid: Int?
    let globalIdColumn: String
    let geometryType: EsriGeometryType?
    let selectList: String
    let budget: ReadBudget

    init(_ layer: ReplicaFileInfo.Layer, schema: FileSchema, budget: ReadBudget, db: Database) throws {
        self.layer = layer
        self.budget = budget
        guard schema.isPlainTable(layer.tableName) else {
            throw ReplicaChanges.Failure.invalid("layer \(layer.layerId) has no table \(layer.tableName)")
        }
        if let attachmentTable = layer.attachmentTable, !schema.isPlainTable(attachmentTable) {
            throw ReplicaChanges.Failure.invalid("layer \(layer.layerId) has no table \(attachmentTable)")
        }
        var geometryColumn: String?
        var wkid: Int?
        if let row = try Row.fetchOne(
            db,
            sql: """
                SELECT g.column_name, s.organization_coordsys_id, s.organization FROM gpkg_geometry_columns g
                LEFT JOIN gpkg_spatial_ref_sys s ON s.srs_id = g.srs_id WHERE g.table_name = ? COLLATE NOCASE
                """, arguments: [layer.tableName])
        {
            geometryColumn = try row.untrusted(0)
            wkid = try row.untrusted(1)
        }
        self.geometryColumn = geometryColumn
        self.wkid = wkid
        let definition = layer.layerDefinition
        geometryType = definition["geometryType"]?.stringValue.flatMap { EsriGeometryType(lenient: $0) }
        var columns: [(String, Bool, Bool)] = []
        for row in try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?)", arguments: [layer.tableName]) {
            let name: String = try row.required(0)
            if name.caseInsensitiveCompare(geometryColumn ?? "") == .orderedSame { continue }
            let type = (try row.untrusted(1, String.self) ?? "").uppercased()
            columns.append((name, type == "DATETIME" || type == "DATE", type == "BLOB"))
        }
        self.columns = columns
        let globalIdField = definition["globalIdField"]?.stringValue ?? "GlobalID"
        guard let globalIdColumn = columns.first(where: { $0.0.caseInsensitiveCompare(globalIdField) == .orderedSame })?.0 else {
            throw ReplicaChanges.Failure.invalid("table \(layer.tableName) has no GlobalID column \(globalIdField)")
        }
        self.globalIdColumn = globalIdColumn
        var select = columns.map { $0.0.quotedDatabaseIdentifier }
        if let geometryColumn { select.append(geometryColumn.quotedDatabaseIdentifier) }
        selectList = select.joined(separator: ", ")
    }

    func feature(globalId: String, _ db: Database) throws -> EditFeature? {
        try Row.fetchOne(
            db, sql: "SELECT \(selectList) FROM \(layer.tableName.quotedDatabaseIdentifier) WHERE \(globalIdColumn.quotedDatabaseIdentifier) = ?",
            arguments: [globalId]
        ).map { try feature($0) }
    }

    func allFeatures(_ db: Database) throws -> [EditFeature] {
        try every("SELECT \(selectList) FROM \(layer.tableName.quotedDatabaseIdentifier) ORDER BY rowid", db) { try feature($0) }
    }

    /// Every row of `sql`, each counted against the change limit before it is made.
    private func every<T>(_ sql: String, _ db: Database, _ make: (Row) throws -> T) throws -> [T] {
        var items: [T] = []
        let rows = try Row.fetchCursor(db, sql: sql)
        while let row = try rows.next() {
            try budget.countChange()
            items.append(try make(row))
        }
        return items
    }

    /// The bytes a row's values take, spent from the file's budget before they are copied.
    private func spend(_ row: Row) throws {
        var bytes = 0
        for index in 0..<row.count {
            switch (row[index] as DatabaseValue).storage {
            case .string(let text): bytes += text.utf8.count
            case .blob(let data): bytes += data.count
            default: bytes += 8
            }
        }
        try budget.spend(bytes)
    }

    private func feature(_ row: Row) throws -> EditFeature {
        try spend(row)
        var attributes = JSONObject()
        for (index, column) in columns.enumerated() {
            let value: DatabaseValue = row[index]
            guard let json = GeoPackageValue.json(value, isDate: column.isDate) else {
                throw ReplicaChanges.Failure.invalid("\(layer.tableName).\(column.name) holds '\(String.fromDatabaseValue(value) ?? "")', not a date")
            }
            attributes[column.name] = json
        }
        var geometry: JSONValue?
        if geometryColumn != nil, let blob = try row.untrusted(columns.count, Data.self), !blob.isEmpty {
            do {
                let decoded = try GeoPackageBinary.decode([UInt8](blob))
                guard case .object(var object) = Geometry(ogc: decoded.geometry, layerType: geometryType).esriJSON else {
                    throw ReplicaChanges.Failure.invalid("a geometry of \(layer.tableName) cannot be written as Esri JSON")
                }
                let srid = wkid ?? Int(decoded.srsID)
                if srid > 0 { object["spatialReference"] = ["wkid": .int(Int64(srid))] }
                geometry = .object(object)
            } catch let error as GeometryError {
                throw ReplicaChanges.Failure.invalid("a geometry of \(layer.tableName): \(error.description)")
            }
        }
        return EditFeature(attributes: attributes, geometry: geometry)
    }

    private static let attachmentColumns = "GLOBALID, REL_GLOBALID, ATT_NAME, content_type, KEYWORDS, data"

    func attachment(globalId: String, _ db: Database) throws -> AttachmentEdit? {
        guard let table = layer.attachmentTable else { return nil }
        return try Row.fetchOne(
            db, sql: "SELECT \(Self.attachmentColumns) FROM \(table.quotedDatabaseIdentifier) WHERE GLOBALID = ?",
            arguments: [globalId]
        ).map { try attachment($0) }
    }

    func allAttachments(_ db: Database) throws -> [AttachmentEdit] {
        guard let table = layer.attachmentTable else { return [] }
        return try every("SELECT \(Self.attachmentColumns) FROM \(table.quotedDatabaseIdentifier) ORDER BY id", db) { try attachment($0) }
    }

    private func attachment(_ row: Row) throws -> AttachmentEdit {
        try spend(row)
        return AttachmentEdit(
            globalId: try row.untrusted(0) ?? "", parentGlobalId: try row.untrusted(1), name: try row.untrusted(2),
            contentType: try row.untrusted(3), keywords: try row.untrusted(4),
            source: .data([UInt8]((try row.untrusted(5, Data.self)) ?? Data())))
    }
}
