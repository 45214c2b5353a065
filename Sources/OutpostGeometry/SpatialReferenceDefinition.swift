/// A spatial reference system as a catalogue defines it (a database's `spatial_ref_sys`,
/// a GeoPackage's `gpkg_spatial_ref_sys`): its id there, name, authority and code, and WKT.
public struct SpatialReferenceDefinition: Sendable, Equatable {
    public var srsId: Int
    public var name: String
    public var organization: String
    public var code: Int
    public var definition: String

    public init(srsId: Int, name: String, organization: String = "EPSG", code: Int? = nil, definition: String) {
        self.srsId = srsId
        self.name = name
        self.organization = organization
        self.code = code ?? srsId
        self.definition = definition
    }
}
