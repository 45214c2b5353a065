/// A parsed `queryRelatedRecords` request: the records related to some features of a layer
/// through one of its relationships (ArcGIS REST, Query Related Records (Feature Service/Layer)).
public struct RelatedRecordsRequest: Sendable, Equatable {
    public var objectIds: [Int64]
    public var relationshipId: Int
    /// nil: the related table's OBJECTID only; `["*"]`: every field.
    public var outFields: [String]?
    /// A `where` on the related records, parsed with the related table's fields like any `where`.
    public var definitionExpression: String?
    public var returnGeometry: Bool
    public var outSR: SpatialReference?
    public var returnCountOnly: Bool
    public var orderBy: [(field: String, ascending: Bool)]
    public var format: ResponseFormat

    public static func == (lhs: RelatedRecordsRequest, rhs: RelatedRecordsRequest) -> Bool {
        lhs.objectIds == rhs.objectIds && lhs.relationshipId == rhs.relationshipId && lhs.outFields == rhs.outFields
            && lhs.definitionExpression == rhs.definitionExpression && lhs.returnGeometry == rhs.returnGeometry && lhs.outSR == rhs.outSR
            && lhs.returnCountOnly == rhs.returnCountOnly && lhs.orderBy.map(\.field) == rhs.orderBy.map(\.field)
            && lhs.orderBy.map(\.ascending) == rhs.orderBy.map(\.ascending) && lhs.format == rhs.format
    }

    /// The parameters as ArcGIS names them; `objectIds` and `relationshipId` are required, the
    /// rest read as a layer `query` reads them.
    public static func parse(_ p: RequestParameters) throws(ArcGISError) -> RelatedRecordsRequest {
        let query = try LayerQuery.parse(p)
        guard let objectIds = query.objectIds, !objectIds.isEmpty else {
            throw .invalidParameter("objectIds", "the features whose related records are wanted")
        }
        guard let raw = p.string("relationshipId") else { throw .invalidParameter("relationshipId", "required") }
        guard let relationshipId = Int(raw) else { throw .invalidParameter("relationshipId", "expected an integer") }
        var seen = Set<Int64>()
        return RelatedRecordsRequest(
            objectIds: objectIds.filter { seen.insert($0).inserted }, relationshipId: relationshipId, outFields: query.outFields,
            definitionExpression: p.string("definitionExpression").flatMap { $0.isEmpty ? nil : $0 }, returnGeometry: query.returnGeometry,
            outSR: query.outSR, returnCountOnly: query.returnCountOnly, orderBy: query.orderBy, format: query.format)
    }

    /// The related table's `where`: its key among the origin features' key values (literals of
    /// the where grammar, which the compiler binds), and the definition expression, if any. A
    /// GUID is matched in the spellings sources use (braced or not, either case).
    public static func relatedWhere(keyField: String, keys: [JSONValue], definitionExpression: String?) -> String {
        var literals: [String] = []
        var seen = Set<String>()
        func add(_ literal: String) { if seen.insert(literal).inserted { literals.append(literal) } }
        for key in keys {
            switch key {
            case .string(let text):
                var spellings = [text]
                if let guid = GlobalID.normalize(text) {
                    let bare = String(guid.dropFirst().dropLast())
                    spellings += [guid, guid.lowercased(), bare, bare.lowercased()]
                }
                for spelling in spellings { add("'" + spelling.replacingOccurrences(of: "'", with: "''") + "'") }
            default: if let number = integer(key) { add(String(number)) }
            }
        }
        let membership = literals.isEmpty ? "1 = 0" : "\(keyField) IN (\(literals.joined(separator: ", ")))"
        guard let definitionExpression else { return membership }
        return "(\(definitionExpression)) AND \(membership)"
    }

    /// The comparable form of a key value: GUIDs without case or braces, numbers as integers.
    public static func keyIdentity(_ value: JSONValue) -> String? {
        if case .string(let text) = value { return GlobalID.normalize(text) ?? text }
        return integer(value).map(String.init)
    }

    /// A whole-number key, however the JSON carried it (a double field holding ids, say).
    private static func integer(_ value: JSONValue) -> Int64? {
        switch value {
        case .int(let number): number
        case .double(let number) where number == number.rounded() && abs(number) < 1e15: Int64(number)
        default: nil
        }
    }
}
