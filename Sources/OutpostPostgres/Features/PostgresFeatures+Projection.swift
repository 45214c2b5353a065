import OutpostGeometry
import OutpostStorage
import OutpostWire

/// Answers that reproject when PostGIS cannot reproject every row: one stored geometry
/// outside what PROJ projects (a row stored before edits were bounded, or imported) makes
/// `ST_Transform` raise, which would fail the whole page. Such a page is read again with the
/// rows projected apart, and the rows PostGIS refuses are answered without geometry
/// (docs/decisions.md, "Coordinate domains"). The first attempt costs no round trip more.
extension PostgresFeatures {
    /// `query`'s result, or nil when PostgreSQL refused it (a projection PostGIS could not
    /// make, or anything the caller's second, projection-free reading will meet again). Inside
    /// a transaction the attempt runs in a savepoint, in the same round trip, so a refusal
    /// leaves the transaction usable.
    static func resultUnlessRefused(_ query: PostgresQuery, connection: PostgresConnection) throws -> PostgresResult? {
        let inTransaction = !connection.isIdle
        do {
            guard inTransaction else { return try connection.query(query) }
            return try connection.pipeline(["SAVEPOINT outpost_projection", query, "RELEASE SAVEPOINT outpost_projection"])[1]
        } catch let error as PostgresError where error.kind == .statement {
            if inTransaction { try connection.execute("ROLLBACK TO SAVEPOINT outpost_projection") }
            return nil
        }
    }

    /// The geometries of the rows `ids` of `source` (SQL with its parameters, aliased `t`)
    /// projected into `srid`, by OBJECTID; a row PostGIS cannot project is absent. Halves the
    /// set it asks for until each refusal is one row: a page of 1,000 with one bad row costs
    /// about twenty statements, not a thousand.
    static func projectedGeometries(
        ids: [Int64], source: (sql: String, binds: [PostgresValue]), objectIdField: String, srid: Int, connection: PostgresConnection
    ) throws -> [Int64: OGCGeometry] {
        let oid = "t.\(PostgresQuery.quoted(identifier: objectIdField))"
        var geometries: [Int64: OGCGeometry] = [:]
        var pending: [ArraySlice<Int64>] = ids.isEmpty ? [] : [ids[...]]
        while let batch = pending.popLast() {
            let query = PostgresQuery(
                questionMarks: "SELECT \(oid), ST_AsBinary(ST_Transform(t.shape, \(srid)))\(source.sql) WHERE \(oid) = ANY(?)",
                binds: source.binds + [PostgresInt64Array(Array(batch)).postgresValue])
            if let result = try resultUnlessRefused(query, connection: connection) {
                for row in result.rows {
                    guard let id = try row.int64(0), let bytes = try row.bytes(1), let geometry = try? WKB.decode(bytes) else { continue }
                    geometries[id] = geometry
                }
            } else if batch.count > 1 {
                let middle = batch.startIndex + batch.count / 2
                pending.append(batch[middle...])
                pending.append(batch[..<middle])
            }
        }
        return geometries
    }

    /// The extent of a layer's geometries in `srid`.
    static func extent(of layer: StoredLayer, to srid: Int, connection: PostgresConnection) throws -> Envelope {
        try extent(from: (" FROM \(PostgresQuery.quoted(identifier: layer.tableName)) t", []), layer: layer, to: srid, connection: connection).extent
    }

    /// How many rows `rows` (`FROM … t [WHERE …]` with its parameters) holds and the extent of
    /// their geometries in `srid`, kept inside the reference's domain: PostGIS's exact
    /// `ST_Extent` of the projected rows, or, when a row cannot be projected, the extent in
    /// the layer's reference, inside its domain, projected by its corners (as SpatiaLite
    /// projects extents); the target's domain when even those cannot be.
    static func extent(
        from rows: (sql: String, binds: [PostgresValue]), layer: StoredLayer, to srid: Int, connection: PostgresConnection, withCount: Bool = false
    ) throws -> (count: Int, extent: Envelope) {
        func read(_ shape: String, refusable: Bool) throws -> (count: Int, extent: Envelope)? {
            let counted = withCount ? "count(*)" : "0"
            let query = PostgresQuery(
                questionMarks:
                    "SELECT n, ST_XMin(b), ST_YMin(b), ST_XMax(b), ST_YMax(b) FROM (SELECT \(counted) AS n, ST_Extent(\(shape))::geometry AS b\(rows.sql)) e",
                binds: rows.binds)
            guard let result = refusable ? try resultUnlessRefused(query, connection: connection) : try connection.query(query) else { return nil }
            guard let row = result.first else { return (0, .empty) }
            let count = try row.int(0) ?? 0
            guard let xmin = try row.double(1), let ymin = try row.double(2), let xmax = try row.double(3), let ymax = try row.double(4) else {
                return (count, .empty)
            }
            return (count, Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax))
        }
        let layerSystem = CoordinateSystemCatalog.coordinateSystem(of: layer.definition.spatialReference)
        let targetSystem = CoordinateSystemCatalog.coordinateSystem(of: SpatialReference(wkid: srid))
        if srid != layer.srid, let projected = try read("ST_Transform(t.shape, \(srid))", refusable: true) {
            return (projected.count, targetSystem.clamped(projected.extent))
        }
        guard let stored = try read("t.shape", refusable: false) else { return (0, .empty) }
        let inside = layerSystem.clamped(stored.extent)
        guard srid != layer.srid, !inside.isEmpty else { return (stored.count, inside) }
        let corners = PostgresQuery(
            questionMarks:
                "SELECT ST_XMin(b), ST_YMin(b), ST_XMax(b), ST_YMax(b) FROM (SELECT ST_Transform(ST_MakeEnvelope(?, ?, ?, ?, \(layer.srid)), \(srid)) AS b) e",
            binds: [inside.xmin, inside.ymin, inside.xmax, inside.ymax].map(\.postgresValue))
        if let row = try resultUnlessRefused(corners, connection: connection)?.first, let xmin = try row.double(0), let ymin = try row.double(1),
            let xmax = try row.double(2), let ymax = try row.double(3)
        {
            return (stored.count, targetSystem.clamped(Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)))
        }
        return (stored.count, targetSystem.domain)
    }
}
