import GRDB

extension ReplicaFile {
    /// Checks a replica file that someone other than its writer may have changed (a map area
    /// package's file, which its owner can replace with `update`) before the server writes into
    /// it: all `checkUntrusted` checks, and a schema that runs nothing a replica file's writer
    /// did not put there. Every trigger must be, word for word, one the writer makes for the
    /// file's own layers; a view, or an index on an expression, is refused. A file that passes
    /// runs only Outpost's own SQL when rows are written. Throws `ReplicaChanges.Failure`.
    public static func checkWritable(_ path: String) throws(ReplicaChanges.Failure) {
        try checkUntrusted(path)
        try UntrustedFile.read(path, limits: .generous) { db, _ in
            let info = try ReplicaFile.info(db, path: path)
            let expected = Set(info.layers.flatMap(writersTriggers).map(normalized))
            for row in try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'view', 'index')") {
                let (type, name, sql): (String, String, String?) = (row[0], row[1], row[2])
                switch type {
                case "view": throw ReplicaChanges.Failure.invalid("view \(name) is not part of a replica file")
                case "trigger":
                    guard let sql, expected.contains(normalized(sql)) else {
                        throw ReplicaChanges.Failure.invalid("trigger \(name) is not one a replica file's writer makes")
                    }
                default:
                    // Plain column indexes only: an expression runs on every row written.
                    let expressions = try Int.fetchOne(db, sql: "SELECT count(*) FROM pragma_index_xinfo(?) WHERE cid = -2", arguments: [name]) ?? 0
                    if expressions > 0 { throw ReplicaChanges.Failure.invalid("index \(name) is on an expression") }
                }
            }
        }
    }

    /// The triggers the writer gives a layer (`ReplicaLayerWriter`), one statement each.
    private static func writersTriggers(_ layer: ReplicaFileInfo.Layer) -> [String] {
        let oid = layer.layerDefinition["objectIdField"]?.stringValue ?? "OBJECTID"
        let gid = layer.layerDefinition["globalIdField"]?.stringValue ?? "GlobalID"
        var scripts = [
            GeoPackageSchema.rtreeTriggers(table: layer.tableName, column: GeoPackageSchema.geometryColumn, key: oid),
            ReplicaFileTriggers.featureChangeLog(
                table: layer.tableName, layerId: layer.layerId, objectId: oid.quotedDatabaseIdentifier, globalId: gid.quotedDatabaseIdentifier),
        ]
        if let attachmentTable = layer.attachmentTable, let mappingTable = layer.mappingTable {
            scripts.append(
                ReplicaFileTriggers.attachmentChangeLog(
                    table: layer.tableName, attachmentTable: attachmentTable, mappingTable: mappingTable, layerId: layer.layerId,
                    objectId: oid.quotedDatabaseIdentifier, globalId: gid.quotedDatabaseIdentifier))
        }
        return scripts.flatMap { script in
            script.components(separatedBy: "CREATE TRIGGER").dropFirst().map { "CREATE TRIGGER" + $0 }
        }
    }

    /// A statement as `sqlite_master` keeps it, compared without its spacing or a final `;`.
    private static func normalized(_ sql: String) -> String {
        var text = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        while text.hasSuffix(";") { text.removeLast() }
        return text
    }
}
