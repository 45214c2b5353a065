import Foundation
import GRDB
import OutpostGeometry
import OutpostSQLite
import OutpostStorage
import OutpostWire

/// Extents: of a layer (its R*Tree's root), of a service, and reprojected ones. Every extent
/// answered is kept inside its reference's domain (`CoordinateSystem.clamped`), so rows
/// stored outside it (before edits were bounded, or imported) neither make a bound infinite
/// (JSON null) nor fail its reprojection (docs/decisions.md, "Coordinate domains").
extension SpatiaLiteFeatures {
    /// The extent of a layer: the union of its R*Tree root cells (no table scan).
    public func extent(of layer: StoredLayer) throws -> Envelope {
        guard layer.isSpatial else { return .empty }
        let extent = try pool.read { db in try Self.extent(of: layer, db: db) }
        return CoordinateSystemCatalog.coordinateSystem(of: layer.definition.spatialReference).clamped(extent)
    }

    /// The R*Tree's bounds as stored (float32, rounded outwards; unbounded over stored
    /// infinities): what the spatial filter compares against.
    static func extent(of layer: StoredLayer, db: Database) throws -> Envelope {
        guard layer.isSpatial else { return .empty }
        guard let data = try Data.fetchOne(db, sql: "SELECT data FROM \("\(layer.spatialIndexTable)_node".quotedDatabaseIdentifier) WHERE nodeno = 1")
        else {
            return .empty
        }
        return RTreeBulkLoader.extent(ofNode: [UInt8](data))
    }

    /// The union of the extents of a service's layers, in the service's spatial reference.
    public func fullExtent(of service: StoredService) throws -> Envelope {
        try pool.read { db in
            var envelope = Envelope.empty
            for layer in service.layers where layer.isSpatial {
                let extent = try Self.extent(of: layer, db: db)
                envelope.expand(try Self.projectedExtent(extent, from: layer.srid, to: service.definition.spatialReference.epsg, db: db))
            }
            return envelope
        }
    }

    /// `envelope` (in `source`) in `target`, through its four corners (PROJ via SpatiaLite),
    /// kept inside each reference's domain: corners PROJ cannot project make the target's
    /// domain the answer rather than a failure.
    static func projectedExtent(_ envelope: Envelope, from source: Int, to target: Int, db: Database) throws -> Envelope {
        let inside = CoordinateSystemCatalog.coordinateSystem(of: SpatialReference(wkid: source)).clamped(envelope)
        guard source != target, !inside.isEmpty else { return inside }
        guard try isKnownSRID(target, db: db) else {
            throw StorageRefusal.unknownSpatialReference(target, of: .outputSpatialReference)
        }
        let corners = OGCGeometry.multiPoint([
            Point(x: inside.xmin, y: inside.ymin), Point(x: inside.xmin, y: inside.ymax),
            Point(x: inside.xmax, y: inside.ymin), Point(x: inside.xmax, y: inside.ymax),
        ])
        let targetSystem = CoordinateSystemCatalog.coordinateSystem(of: SpatialReference(wkid: target))
        guard let projected = try? transform(corners, from: source, to: target, db: db), projected.isFinite else { return targetSystem.domain }
        return targetSystem.clamped(projected.envelope)
    }
}
