import Foundation
import OutpostWire

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// What a File Geodatabase says of its schema beyond what GDAL's GeoPackage copy carries: its
/// relationship classes, attachment relationships among them, and its subtypes with the
/// domains they name, read from the XML definitions of its `GDB_Items` system table
/// (docs/import.md, "File Geodatabase relationships", "Subtypes"). GDAL 3.6 exposes
/// relationships only through its library and subtypes not at all, and the GeoPackage driver of
/// that version writes neither; the definitions are the geodatabase's own record of them.
public struct GeodatabaseCatalog: Sendable, Equatable {
    /// One relationship class, as its `DERelationshipClassInfo` definition states it.
    public struct RelationshipClass: Sendable, Equatable {
        public var name: String
        public var origin: String
        public var destination: String
        public var cardinality: RelationshipDefinition.Cardinality
        public var isComposite: Bool
        /// The origin's key (`esriRelKeyRoleOriginPrimary`), and the destination's field that
        /// holds it (`esriRelKeyRoleOriginForeign`).
        public var originPrimaryKey: String
        public var originForeignKey: String
        public var forwardLabel: String
        public var backwardLabel: String
        /// The destination is the origin's `__ATTACH` table.
        public var isAttachment: Bool
        /// Attributed and many-to-many classes keep their pairs in a table of their own.
        public var isAttributed: Bool

        public init(
            name: String, origin: String, destination: String, cardinality: RelationshipDefinition.Cardinality, isComposite: Bool,
            originPrimaryKey: String, originForeignKey: String, forwardLabel: String = "", backwardLabel: String = "",
            isAttachment: Bool = false, isAttributed: Bool = false
        ) {
            self.name = name
            self.origin = origin
            self.destination = destination
            self.cardinality = cardinality
            self.isComposite = isComposite
            self.originPrimaryKey = originPrimaryKey
            self.originForeignKey = originForeignKey
            self.forwardLabel = forwardLabel
            self.backwardLabel = backwardLabel
            self.isAttachment = isAttachment
            self.isAttributed = isAttributed
        }
    }

    /// A definition that could not be read: its item's name and why.
    public struct Unreadable: Error, Equatable, CustomStringConvertible {
        public var item: String
        public var reason: String
        public var description: String { "the File Geodatabase item \(item) has an unreadable definition: \(reason)" }
    }

    public var relationships: [RelationshipClass]
    public var subtypeClasses: [SubtypeClass]
    /// Coded-value and range domains by lower-cased name.
    public var domains: [String: FieldDomain]

    public init(relationships: [RelationshipClass] = [], subtypeClasses: [SubtypeClass] = [], domains: [FieldDomain] = []) {
        self.relationships = relationships
        self.subtypeClasses = subtypeClasses
        self.domains = Dictionary(domains.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Reads the definitions of `GDB_Items` (name, XML); items of other kinds are passed over.
    public init(items: [(name: String, definition: String)]) throws {
        self.init()
        for item in items {
            let head = item.definition.prefix(400)
            if head.contains("DERelationshipClassInfo") {
                relationships.append(try Self.relationship(item.definition, item: item.name))
            } else if head.contains("GPCodedValueDomain2") || head.contains("GPRangeDomain2") {
                if let domain = try Self.domain(item.definition, item: item.name) { domains[domain.name.lowercased()] = domain }
            } else if (head.contains("DEFeatureClassInfo") || head.contains("DETableInfo")) && item.definition.contains("<Subtypes") {
                if let subtypes = try Self.subtypeClass(item.definition, item: item.name) { subtypeClasses.append(subtypes) }
            }
        }
    }

    /// The attachment relationship whose destination is `table`, if any (names without case).
    public func attachmentRelationship(destination table: String) -> RelationshipClass? {
        relationships.first { $0.isAttachment && $0.destination.lowercased() == table.lowercased() }
    }

    static func relationship(_ xml: String, item: String) throws -> RelationshipClass {
        let root = try root(xml, item: item)
        func text(_ name: String) -> String? { root.text(name) }
        func names(_ list: String) -> [String] {
            root.elements(forName: list).first?.elements(forName: "Name").compactMap(\.stringValue) ?? []
        }
        var keys: [String: String] = [:]
        for key in root.elements(forName: "OriginClassKeys").first?.elements(forName: "RelationshipClassKey") ?? [] {
            if let role = key.elements(forName: "KeyRole").first?.stringValue, let name = key.elements(forName: "ObjectKeyName").first?.stringValue {
                keys[role] = name
            }
        }
        guard let origin = names("OriginClassNames").first, let destination = names("DestinationClassNames").first else {
            throw Unreadable(item: item, reason: "no origin or destination class")
        }
        guard let primary = keys["esriRelKeyRoleOriginPrimary"], let foreign = keys["esriRelKeyRoleOriginForeign"] else {
            throw Unreadable(item: item, reason: "no origin primary or foreign key")
        }
        guard let cardinality = text("Cardinality").flatMap(RelationshipDefinition.Cardinality.init(rawValue:)) else {
            throw Unreadable(item: item, reason: "cardinality \(text("Cardinality") ?? "missing")")
        }
        return RelationshipClass(
            name: text("Name") ?? item, origin: origin, destination: destination, cardinality: cardinality,
            isComposite: text("IsComposite") == "true", originPrimaryKey: primary, originForeignKey: foreign,
            forwardLabel: text("ForwardPathLabel") ?? "", backwardLabel: text("BackwardPathLabel") ?? "",
            isAttachment: text("IsAttachmentRelationship") == "true",
            isAttributed: text("IsAttributed") == "true" || cardinality == .manyToMany)
    }
}
