import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostWire
import Synchronization

/// Changing features on PostgreSQL: one transaction per request, every row stamped by the
/// database with the transaction's id (docs/postgres.md, "Generations"). Writers run side by
/// side, in any number of processes; nothing serialises them but the rows they share.
public struct PostgresEdits: FeatureEditing {
    let pool: PostgresPool
    let held: PostgresCatalog
    let clock: any WallClock
    let counter: EditCounter
    /// Attachment bytes, in the data folder every process shares.
    let files: AttachmentFiles
    let uploads: PostgresUploadStore

    /// The newest generation: a tick taken now, whose snapshot sees every committed write.
    public func currentGeneration() throws -> Int64 {
        try pool.transaction(.repeatableRead) { try GenerationTicks.take(on: $0).tick }
    }

    /// Applies adds, updates and deletes to layers of a service in one transaction, with the
    /// SpatiaLite backend's rules (`SpatiaLiteEdits.applyEdits`): with `rollbackOnFailure`
    /// every result fails when any edit fails and nothing is written; without it a failed
    /// edit leaves no trace and the others commit. `generation` in the outcome is the
    /// transaction id the rows were stamped with. Request-level problems throw.
    public func applyEdits(
        service serviceName: String, edits: [LayerEdits], options: EditOptions, context: EditContext = EditContext()
    ) throws -> EditOutcome {
        try applyEdits(service: serviceName, edits: edits, options: options, context: context, files: [:])
    }

    /// `files`: attachment bytes already on disk (spooled uploads), by attachment GlobalID;
    /// they are moved in like inline data and removed if not registered.
    public func applyEdits(
        service serviceName: String, edits: [LayerEdits], options: EditOptions, context: EditContext,
        files spooled: [String: (path: String, size: Int)]
    ) throws -> EditOutcome {
        let moment = clock.milliseconds()
        struct RolledBack: Error { var results: [LayerEditResults] }
        let prepared = try prepareAttachmentFiles(edits, service: serviceName, files: spooled)
        do {
            return try PostgresEditSession.run(
                pool, catalog: held, moment: moment, context: context, options: options, preparedFiles: prepared, files: files
            ) { session, catalog in
                let service = try catalog.existingService(named: serviceName)
                var layers: [StoredLayer] = []
                for layerEdits in edits {
                    guard let layer = service.layers.first(where: { $0.definition.id == layerEdits.layerId }) else {
                        throw StoreError.layerNotFound(service: serviceName, layer: layerEdits.layerId)
                    }
                    try EditRules.checkCapabilities(service.definition, edits: layerEdits)
                    if layerEdits.attachments?.isEmpty == false { try layer.checkHasAttachments() }
                    layers.append(layer)
                }
                let results = try zip(edits, layers).map { layerEdits, layer in try session.apply(layerEdits, to: layer) }
                if options.rollbackOnFailure && results.contains(where: { $0.all.contains { !$0.success } }) {
                    throw RolledBack(results: results)
                }
                let committed = results.contains { $0.all.contains(where: \.success) }
                let stamp = try PostgresEditSession.markEdited(layers, at: moment, connection: session.connection, committing: true)
                counter.value.add(results.reduce(0) { $0 + $1.all.count(where: \.success) }, ordering: .relaxed)
                return EditOutcome(layers: results, editMoment: moment, generation: committed ? stamp : nil)
            }
        } catch let rolledBack as RolledBack {
            var results = rolledBack.results
            for index in results.indices { results[index].markRolledBack() }
            return EditOutcome(layers: results, editMoment: moment, generation: nil)
        }
    }

    /// Writes inline `data`, copies `uploadId` items and moves `spooled` files into the data
    /// folder's `attachments/`, keyed by the attachment's GlobalID (`AttachmentFiles.prepare`).
    func prepareAttachmentFiles(
        _ edits: [LayerEdits], service: String, files spooled: [String: (path: String, size: Int)] = [:]
    ) throws -> [String: PreparedAttachmentFile] {
        try files.prepare(edits, files: spooled) { try uploads.copyOfUpload(service: service, itemID: $0) }
    }

    /// Bulk load (import, demo data): one transaction, rows read as the SpatiaLite import reads
    /// them (`BulkLoadRows`) and streamed by `COPY` as they are encoded, so the encoding and
    /// the server's load overlap. Returns the new OBJECTIDs in order: the identity numbers
    /// the rows as COPY reads them, ascending, so reading back the ones this transaction
    /// stamped, in order, pairs them with the rows. `keepingObjectIds` (moving data in from
    /// another store): each row's OBJECTID is kept and the identity continues after the largest.
    @discardableResult
    public func insert(_ rows: [FeatureRow], service: String, layer layerId: Int, keepingObjectIds: Bool) throws -> [Int64] {
        try copy(service: service, layer: layerId, expectedCount: rows.count, keepingObjectIds: keepingObjectIds, returningIds: true) { emit in
            for row in rows { try emit(row) }
        }.ids
    }

    @discardableResult
    public func insert(_ rows: [FeatureRow], service: String, layer layerId: Int) throws -> [Int64] {
        try insert(rows, service: service, layer: layerId, keepingObjectIds: false)
    }

    /// As `insert`, with the rows streamed from `produce` and only their number returned.
    @discardableResult
    public func load(
        service: String, layer layerId: Int, expectedCount: Int, _ produce: (_ emit: (FeatureRow) throws -> Void) throws -> Void
    ) throws -> Int {
        try copy(service: service, layer: layerId, expectedCount: expectedCount, keepingObjectIds: false, returningIds: false, produce).count
    }

    private func copy(
        service: String, layer layerId: Int, expectedCount: Int, keepingObjectIds: Bool, returningIds: Bool,
        _ produce: (_ emit: (FeatureRow) throws -> Void) throws -> Void
    ) throws -> (count: Int, ids: [Int64]) {
        let layer = try held.load().existingLayer(service: service, id: layerId)
        let definition = layer.definition
        var reader = BulkLoadRows(definition)
        var columns = reader.fields.map(\.name)
        if keepingObjectIds { columns.append(definition.objectIdField) }
        if layer.isSpatial { columns.append(StoredLayer.geometryColumn) }
        let table = PostgresQuery.quoted(identifier: layer.tableName)
        let geometryPrefix = Array("SRID=\(layer.srid);".utf8)
        let isLarge = expectedCount >= Self.rebuildIndexesFrom
        return try pool.transaction { connection in
            // Into an empty table, the indexes are built once after the rows (PostGIS sorts a
            // point GiST in one pass) rather than grown row by row.
            let rebuilt = isLarge ? try Self.dropIndexesIfEmpty(layer, connection: connection) : []
            var kept: [Int64] = []
            var count = 0
            try connection.copyIn("COPY \(table) (\(columns.map(PostgresQuery.quoted(identifier:)).joined(separator: ", "))) FROM STDIN") { write in
                var buffer = PostgresCopy.RowBuffer(capacity: PostgresCopy.chunkSize + 4096)
                // `write` is only called while `copyIn` runs: within `produce`, which returns first.
                try withoutActuallyEscaping(write) { write in
                    try produce { row in
                        let read = try reader.read(row, index: count)
                        for value in read.values { buffer.append(Self.copyText(value)) }
                        if keepingObjectIds {
                            guard let objectId = read.objectId?.int64Value else {
                                throw StoreError.invalidFeature("row \(count): no \(definition.objectIdField) to keep")
                            }
                            kept.append(objectId)
                            buffer.append(String(objectId))
                        }
                        if layer.isSpatial { buffer.appendHex(read.geometry.map(WKB.encode), prefix: geometryPrefix) }
                        buffer.end()
                        count += 1
                        if buffer.bytes.count >= PostgresCopy.chunkSize { try write(buffer.take()) }
                    }
                }
                if !buffer.bytes.isEmpty { try write(buffer.take()) }
            }
            for definition in rebuilt { try connection.execute(definition) }
            // Statistics now, not when autovacuum comes round: without them the planner takes a
            // large table's rows for unknown and may scan all of it in OBJECTID order to answer
            // a download of a few changes.
            if isLarge { try connection.execute("ANALYZE \(table)") }
            if keepingObjectIds,
                let sequence = try connection.query(
                    "SELECT pg_get_serial_sequence(\(table), \(definition.objectIdField))"
                ).first?.string(0)
            {
                // ObjectIDs kept from elsewhere: new ones continue after the largest, and never go back.
                try connection.query(
                    """
                    SELECT setval(\(sequence), greatest((SELECT last_value FROM \(unescaped: sequence)),
                        (SELECT coalesce(max(\(identifier: definition.objectIdField)), 1) FROM \(unescaped: table))))
                    """)
            }
            try connection.query(
                "UPDATE outpost_layers SET last_edit_date = \(clock.milliseconds()) WHERE service = \(layer.serviceName) AND layer_id = \(layerId)")
            if keepingObjectIds { return (count, kept) }
            guard returningIds, count > 0 else { return (count, []) }
            let ids = try connection.query(
                """
                SELECT \(identifier: definition.objectIdField) FROM \(unescaped: table)
                WHERE outpost_xid = \(unescaped: GenerationTicks.stamp) ORDER BY 1
                """
            ).rows.map { try $0.required(0, $0.int64) }
            return (count, ids)
        }
    }

    /// Loads of at least this many rows into an empty table rebuild its indexes after.
    static let rebuildIndexesFrom = 10_000

    /// Drops the secondary indexes of `layer`'s table when it holds no row, returning the
    /// statements that make them again (as PostgreSQL prints them). Inside the load's
    /// transaction: a failed load leaves them as they were.
    static func dropIndexesIfEmpty(_ layer: StoredLayer, connection: PostgresConnection) throws -> [String] {
        let table = PostgresQuery.quoted(identifier: layer.tableName)
        guard try connection.query("SELECT NOT EXISTS (SELECT 1 FROM \(unescaped: table))").first?.bool(0) == true else { return [] }
        let indexes = try connection.query(
            """
            SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i
            WHERE i.indrelid = \(table)::regclass AND NOT i.indisprimary
            """
        ).rows.map { (try $0.required(0, $0.string), try $0.required(1, $0.string)) }
        for (name, _) in indexes { try connection.execute("DROP INDEX \(name)") }
        return indexes.map(\.1)
    }

    static func copyText(_ value: SQLValue) -> String? {
        switch value {
        case .null: nil
        case .integer(let value): String(value)
        case .real(let value): value.isFinite ? value.description : (value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity"))
        case .text(let value): value
        case .blob(let bytes): "\\x" + PostgresCopy.hex(bytes)
        }
    }
}
