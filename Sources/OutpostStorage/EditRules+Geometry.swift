import OutpostGeometry
import OutpostWire

extension EditRules {
    /// An edit's Esri JSON geometry as a layer stores it (its OGC column type), with the
    /// reference the JSON names (nil: the layer's). Every edit path of both backends comes
    /// here (applyEdits, add/updateFeatures, versioned edits, sync uploads): structure
    /// (`Geometry.validate`), type, and coordinates inside the reference's domain
    /// (`CoordinateSystem.domain`, docs/decisions.md "Coordinate domains"). Each failure is the
    /// edit's error 1000.
    public static func storableGeometry(_ json: JSONValue, for layer: LayerDefinition) throws -> (OGCGeometry, SpatialReference?) {
        guard let type = layer.geometryType else { throw StoreError.invalidFeature("a table has no geometry") }
        let (geometry, reference) = try Geometry.fromEsriJSON(json)
        try geometry.validate()
        guard geometry.fits(type) else {
            throw GeometryError.invalid("a \(geometry.geometryType.shortName) does not fit a \(type.shortName) layer")
        }
        let given = reference ?? layer.spatialReference
        try geometry.checkDomain(of: given, CoordinateSystemCatalog.coordinateSystem(of: given))
        return (try SchemaRules.storable(geometry.ogc, for: layer, row: 0), reference)
    }

    /// After a reprojection into the layer's reference (SpatiaLite's, in the edit): what PROJ
    /// made of a coordinate inside the given domain must be inside the layer's too.
    public static func checkProjected(_ geometry: OGCGeometry, for layer: LayerDefinition) throws {
        let coordinateSystem = CoordinateSystemCatalog.coordinateSystem(of: layer.spatialReference)
        guard let outside = geometry.firstVertex(outside: coordinateSystem) else { return }
        throw GeometryError.invalid(
            "projected into the layer's spatial reference, "
                + Geometry.outsideDescription(outside, reference: layer.spatialReference, coordinateSystem))
    }
}
