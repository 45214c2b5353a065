// An app imports only OutpostClient: the geometry and wire types its API takes and returns
// (`Envelope`, `Point`, `Geometry`, `SpatialReference`, `SyncDirection`, …) come with it.
@_exported import OutpostGeometry
@_exported import OutpostWire
