import OutpostWire

/// A layer as stored: its definition and where its rows live.
public struct StoredLayer: Sendable, Equatable {
    public var definition: LayerDefinition
    public var serviceName: String
    public var tableName: String
    /// Its service is versioned: updates and deletes keep the replaced row in `historyTable`,
    /// and syncs reconcile attribute by attribute (`VersionReconcile`).
    public var isVersioned = false

    /// The geometry column (absent for tables).
    public static let geometryColumn = "shape"

    public var isSpatial: Bool { definition.geometryType != nil }
    /// SpatiaLite's R*Tree for the geometry column.
    public var spatialIndexTable: String { "idx_\(tableName)_\(Self.geometryColumn)" }
    public var attachmentTable: String { "\(tableName)__attach" }
    /// Earlier states of rows (versioned services): the row as it was, valid for generations
    /// `outpost_gen ..< outpost_valid_to`.
    public var historyTable: String { "\(tableName)__history" }
    /// Rows of named versions (versioned services): whole rows, one per feature a version changed.
    public var versionTable: String { "\(tableName)__version_rows" }
    public var srid: Int { definition.spatialReference.epsg }
    /// The tables holding the layer's rows and their companions, as `StoreMaintenance.tableBytes` takes them.
    public var storageTables: [String] { [tableName, attachmentTable, historyTable, versionTable] }

    public init(definition: LayerDefinition, serviceName: String, tableName: String, isVersioned: Bool = false) {
        self.definition = definition
        self.serviceName = serviceName
        self.tableName = tableName
        self.isVersioned = isVersioned
    }
}
