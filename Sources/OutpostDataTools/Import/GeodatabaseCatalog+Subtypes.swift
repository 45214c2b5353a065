import Foundation
import OutpostWire

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Subtypes and the domains they name, read from a File Geodatabase's definitions: a table's
/// `DEFeatureClassInfo`/`DETableInfo` (`SubtypeFieldName`, `DefaultSubtypeCode`, `Subtypes`) and
/// the geodatabase's `GPCodedValueDomain2`/`GPRangeDomain2` items. GDAL 3.6 neither reads nor
/// writes subtypes, and copies only the domains that fields name.
extension GeodatabaseCatalog {
    /// A table's subtypes as its definition states them.
    public struct SubtypeClass: Sendable, Equatable {
        /// One field's entry in a subtype: its domain by name (nil: none) and its default.
        public struct FieldInfo: Sendable, Equatable {
            public var field: String
            public var domainName: String?
            public var defaultValue: JSONValue

            public init(field: String, domainName: String? = nil, defaultValue: JSONValue = .null) {
                self.field = field
                self.domainName = domainName
                self.defaultValue = defaultValue
            }
        }

        public struct Subtype: Sendable, Equatable {
            public var code: Int64
            public var name: String
            public var fields: [FieldInfo]

            public init(code: Int64, name: String, fields: [FieldInfo] = []) {
                self.code = code
                self.name = name
                self.fields = fields
            }
        }

        public var table: String
        public var field: String
        public var defaultCode: Int64
        public var subtypes: [Subtype]

        public init(table: String, field: String, defaultCode: Int64, subtypes: [Subtype]) {
            self.table = table
            self.field = field
            self.defaultCode = defaultCode
            self.subtypes = subtypes
        }
    }

    /// The subtypes of `table` (names without case), if it has any.
    public func subtypeClass(of table: String) -> SubtypeClass? {
        subtypeClasses.first { $0.table.lowercased() == table.lowercased() }
    }

    /// The domain named `name` (without case).
    public func domain(named name: String) -> FieldDomain? { domains[name.lowercased()] }

    /// A definition's root element. A definition is the file's, so anyone's: a document type
    /// (where entities are declared) is refused, and entities are never loaded — Foundation's
    /// parser on Linux substitutes external entities (`file://`) unless told not to.
    static func root(_ xml: String, item: String) throws -> XMLElement {
        guard xml.range(of: "<!DOCTYPE", options: .caseInsensitive) == nil, xml.range(of: "<!ENTITY", options: .caseInsensitive) == nil else {
            throw Unreadable(item: item, reason: "it declares a document type or entities, which a geodatabase's definitions never do")
        }
        let document: XMLDocument
        do { document = try XMLDocument(xmlString: xml, options: [.nodeLoadExternalEntitiesNever]) } catch {
            throw Unreadable(item: item, reason: "\(error)")
        }
        guard let root = document.rootElement() else { throw Unreadable(item: item, reason: "no root element") }
        return root
    }

    /// The subtypes a table's definition states; nil when it has none.
    static func subtypeClass(_ xml: String, item: String) throws -> SubtypeClass? {
        let root = try root(xml, item: item)
        guard let field = root.text("SubtypeFieldName"), !field.isEmpty, let list = root.elements(forName: "Subtypes").first else { return nil }
        var subtypes: [SubtypeClass.Subtype] = []
        for element in list.elements(forName: "Subtype") {
            guard let code = element.text("SubtypeCode").flatMap({ Int64($0) }) else {
                throw Unreadable(item: item, reason: "a subtype without an integer SubtypeCode")
            }
            var fields: [SubtypeClass.FieldInfo] = []
            for info in element.elements(forName: "FieldInfos").first?.elements(forName: "SubtypeFieldInfo") ?? [] {
                guard let name = info.text("FieldName") else { continue }
                let domain = info.text("DomainName").flatMap { $0.isEmpty ? nil : $0 }
                fields.append(
                    SubtypeClass.FieldInfo(
                        field: name, domainName: domain, defaultValue: info.elements(forName: "DefaultValue").first.map(typedValue) ?? .null))
            }
            subtypes.append(SubtypeClass.Subtype(code: code, name: element.text("SubtypeName") ?? String(code), fields: fields))
        }
        guard let defaultCode = root.text("DefaultSubtypeCode").flatMap({ Int64($0) }) ?? subtypes.first?.code else { return nil }
        return SubtypeClass(table: root.text("Name") ?? item, field: field, defaultCode: defaultCode, subtypes: subtypes)
    }

    /// A coded-value or range domain item as Outpost's domain; nil for other kinds.
    static func domain(_ xml: String, item: String) throws -> FieldDomain? {
        let root = try root(xml, item: item)
        let name = root.text("DomainName") ?? item
        if let values = root.elements(forName: "CodedValues").first {
            let codes = values.elements(forName: "CodedValue").compactMap { value -> FieldDomain.CodedValue? in
                guard let code = value.elements(forName: "Code").first.map(typedValue), !code.isNull else { return nil }
                return FieldDomain.CodedValue(name: value.text("Name") ?? code.jsonText, code: code)
            }
            return .codedValue(name: name, codes: codes)
        }
        guard let minimum = root.elements(forName: "MinValue").first.map(typedValue)?.doubleValue,
            let maximum = root.elements(forName: "MaxValue").first.map(typedValue)?.doubleValue
        else { return nil }
        return .range(name: name, minimum: minimum, maximum: maximum)
    }

    /// An element's value as its `xsi:type` says: integers, reals, text, and dates as epoch
    /// milliseconds (as Outpost's date fields hold them).
    static func typedValue(_ element: XMLElement) -> JSONValue {
        guard let text = element.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) else { return .null }
        if element.attribute(forName: "xsi:nil")?.stringValue == "true" { return .null }
        switch element.attribute(forName: "xsi:type")?.stringValue ?? "xs:string" {
        case "xs:int", "xs:short", "xs:long", "xs:byte": return Int64(text).map(JSONValue.int) ?? .null
        case "xs:double", "xs:float", "xs:decimal": return Double(text).map(JSONValue.double) ?? .null
        case "xs:dateTime":
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate, .withFullTime]
            formatter.timeZone = TimeZone(identifier: "UTC")
            let zoned = text.hasSuffix("Z") || text.contains("+") ? text : text + "Z"
            return formatter.date(from: zoned).map { .int(Int64(($0.timeIntervalSince1970 * 1000).rounded())) } ?? .null
        default: return .string(text)
        }
    }
}

extension XMLElement {
    /// The trimmed text of the first child element named `name`.
    func text(_ name: String) -> String? {
        elements(forName: name).first?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
