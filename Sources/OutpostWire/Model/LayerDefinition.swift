/// The schema of one layer or table, as the catalog stores it and the metadata serves it.
public struct LayerDefinition: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case featureLayer = "Feature Layer"
        case table = "Table"
    }

    /// Editor-tracking field names (ArcGIS `editFieldsInfo`).
    public struct EditFieldsInfo: Sendable, Equatable {
        public var creationDateField: String
        public var creatorField: String
        public var editDateField: String
        public var editorField: String

        public init(
            creationDateField: String = "CreationDate", creatorField: String = "Creator",
            editDateField: String = "EditDate", editorField: String = "Editor"
        ) {
            self.creationDateField = creationDateField
            self.creatorField = creatorField
            self.editDateField = editDateField
            self.editorField = editorField
        }

        /// The four fields, which every edit of either side stamps: never a conflict.
        public var all: [String] { [creationDateField, creatorField, editDateField, editorField] }
        /// The two an edit stamps on an existing feature.
        public var editStamps: [String] { [editDateField, editorField] }
    }

    public var id: Int
    public var name: String
    public var kind: Kind
    public var description: String
    public var geometryType: EsriGeometryType?
    public var spatialReference: SpatialReference
    public var fields: [FieldDefinition]
    public var objectIdField: String
    public var globalIdField: String
    public var displayField: String
    public var hasAttachments: Bool
    public var relationships: [RelationshipDefinition]
    public var editFieldsInfo: EditFieldsInfo?
    public var maxRecordCount: Int
    public var subtypes: LayerSubtypes?

    public init(
        id: Int, name: String, kind: Kind, description: String = "", geometryType: EsriGeometryType?,
        spatialReference: SpatialReference, fields: [FieldDefinition], objectIdField: String = "OBJECTID",
        globalIdField: String = "GlobalID", displayField: String? = nil, hasAttachments: Bool = false,
        relationships: [RelationshipDefinition] = [], editFieldsInfo: EditFieldsInfo? = nil,
        maxRecordCount: Int = 2000, subtypes: LayerSubtypes? = nil
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.description = description
        self.geometryType = kind == .table ? nil : geometryType
        self.spatialReference = spatialReference
        self.fields = fields
        self.objectIdField = objectIdField
        self.globalIdField = globalIdField
        self.displayField =
            displayField
            ?? fields.first(where: { $0.type == .string })?.name ?? objectIdField
        self.hasAttachments = hasAttachments
        self.relationships = relationships
        self.editFieldsInfo = editFieldsInfo
        self.maxRecordCount = maxRecordCount
        self.subtypes = subtypes
    }

    /// The field named `name`, ignoring case (ArcGIS field names are case-insensitive).
    public func field(named name: String) -> FieldDefinition? {
        if let exact = fields.first(where: { $0.name == name }) { return exact }
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }
    }

    /// Adds the OBJECTID and GlobalID fields in front when they are missing.
    public static func withSystemFields(
        _ fields: [FieldDefinition], objectIdField: String = "OBJECTID",
        globalIdField: String = "GlobalID"
    ) -> [FieldDefinition] {
        var result = fields.filter { $0.type != .oid && $0.type != .globalID }
        result.insert(FieldDefinition(name: globalIdField, type: .globalID, nullable: false, editable: false), at: 0)
        result.insert(FieldDefinition(name: objectIdField, type: .oid, nullable: false, editable: false), at: 0)
        return result
    }
}

/// A feature service: its layers and tables and what it lets clients do.
public struct ServiceDefinition: Sendable, Equatable {
    public var name: String
    public var description: String
    /// Versioned data syncs per replica with direction control; non-versioned per layer.
    public var isVersioned: Bool
    public var capabilities: [String]
    public var spatialReference: SpatialReference
    public var maxRecordCount: Int
    public var layers: [LayerDefinition]

    public static let defaultCapabilities = ["Create", "Delete", "Query", "Update", "Editing", "Sync", "Uploads"]

    public init(
        name: String, description: String = "", isVersioned: Bool = false,
        capabilities: [String] = ServiceDefinition.defaultCapabilities,
        spatialReference: SpatialReference = .wgs84, maxRecordCount: Int = 2000, layers: [LayerDefinition] = []
    ) {
        self.name = name
        self.description = description
        self.isVersioned = isVersioned
        self.capabilities = capabilities
        self.spatialReference = spatialReference
        self.maxRecordCount = maxRecordCount
        self.layers = layers
    }

    public func layer(id: Int) -> LayerDefinition? { layers.first { $0.id == id } }

    /// Service names are matched case-insensitively, as ArcGIS Server does.
    public static func normalizedName(_ name: String) -> String { name.lowercased() }

    /// The folder the service is in (`Folder/Name`), as on ArcGIS Server; `nil` at the root.
    public var folder: String? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2 ? String(parts[0]) : nil
    }

    /// The name within its folder.
    public var nameInFolder: String { String(name.split(separator: "/").last ?? Substring(name)) }

    /// Words that follow a folder in service URLs (`<folder>/FeatureServer` would be ambiguous).
    public static let reservedNames: Set<String> = [
        "featureserver", "versionmanagementserver", "replicafiles", "mapserver", "vectortileserver", "geocodeserver", "naserver",
    ]

    /// A service name is a plain identifier, optionally inside one folder (`Folder/Name`;
    /// ArcGIS Server has one level of folders): it becomes part of URLs and table names.
    public static func isValidName(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), name.count <= 120, !reservedNames.contains(parts[parts.count - 1].lowercased()) else { return false }
        return parts.allSatisfy(isIdentifier)
    }

    private static func isIdentifier(_ part: Substring) -> Bool {
        !part.isEmpty
            && part.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" || $0 == "-" }
    }
}
