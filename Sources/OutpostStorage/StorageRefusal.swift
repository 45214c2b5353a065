import OutpostWire

/// A value of a request a backend refuses — a spatial reference it cannot project, a field
/// the layer lacks, a `where` that does not compile, a generation it never handed out, an
/// upload part it does not hold — said of the value, never of the HTTP parameter that
/// carried it: storage knows queries, replicas and uploads, not the forms they came in.
/// The HTTP layer or the use case that read the request names the parameter
/// (`StorageRefusal.naming`); unnamed, the answer says what was wrong, with the same code.
public enum StorageRefusal: ArcGISErrorConvertible, Sendable, Equatable, CustomStringConvertible {
    /// Which value of a request was refused: a layer query's (`LayerQuery`), a replica's
    /// (`ReplicaPlan`, a sync's generations) or an upload's.
    public enum Value: Sendable, Hashable {
        case whereClause, having, objectIds, geometry, geometrySpatialReference, outputSpatialReference
        case outFields, orderBy, groupBy, statistics
        case replicaSpatialReference, replicaGeometrySpatialReference, generation
        case partId, parts, uploadItem
    }

    /// A spatial reference the database cannot project to or from.
    case unknownSpatialReference(Int, of: Value)
    /// A name that is none of the layer's fields.
    case unknownField(String, in: Value)
    /// A `where` or `having` that does not compile, or that the database refuses of a valid
    /// parse (a text compared with a number): why.
    case invalidClause(String, in: Value)
    /// A query geometry that cannot be read.
    case invalidGeometry(String)
    /// A spatial filter on a table (a layer without geometry).
    case notSpatial(layer: String)
    /// More object ids than one query takes.
    case tooManyObjectIds(limit: Int)
    /// A statistic that needs numbers, asked of a field that holds none.
    case notNumeric(statistic: String)
    /// Two statistics answered under one name.
    case outputNameTwice(String)
    /// A grouped statistics answer ordered by a name that is neither a group field nor a statistic.
    case neitherGroupNorStatistic(String)
    /// Distinct values ordered by a field that is not one of them.
    case notADistinctField(String)
    /// Distinct values asked without the fields to make distinct.
    case noDistinctFields
    /// A generation this server never handed out.
    case unknownGeneration(Int64)
    /// An upload part named by something that is not a part id.
    case notAPartId(String)
    /// An upload part named that was never uploaded.
    case partNotUploaded(Int)
    /// An upload committed without parts.
    case noParts
    /// A part id outside 1…10000.
    case partIdOutOfRange(Int)
    /// A part added to an item already committed.
    case alreadyCommitted(item: String)
    /// An item used before it was committed.
    case notCommitted(item: String)

    /// A clause the where compiler refused: a field it names that the layer lacks as such,
    /// anything else with the compiler's reason.
    public init(_ error: WhereClauseError, in value: Value) {
        if case .unknownField(let name) = error {
            self = .unknownField(name, in: value)
        } else {
            self = .invalidClause(error.description, in: value)
        }
    }

    /// Which value of the request was refused.
    public var value: Value {
        switch self {
        case .unknownSpatialReference(_, let value), .unknownField(_, let value), .invalidClause(_, let value): value
        case .invalidGeometry, .notSpatial: .geometry
        case .tooManyObjectIds: .objectIds
        case .notNumeric, .outputNameTwice: .statistics
        case .neitherGroupNorStatistic, .notADistinctField: .orderBy
        case .noDistinctFields: .outFields
        case .unknownGeneration: .generation
        case .notAPartId, .partNotUploaded, .noParts: .parts
        case .partIdOutOfRange, .alreadyCommitted: .partId
        case .notCommitted: .uploadItem
        }
    }

    public var description: String {
        switch self {
        case .unknownSpatialReference(let wkid, _): "unknown spatial reference \(wkid)"
        case .unknownField(let name, _): "unknown field '\(name)'"
        case .invalidClause(let reason, _), .invalidGeometry(let reason): reason
        case .notSpatial(let layer): "\(layer) is a table"
        case .tooManyObjectIds(let limit): "more than \(limit) ids"
        case .notNumeric(let statistic): "\(statistic) needs a numeric field"
        case .outputNameTwice(let name): "the output name '\(name)' is used twice"
        case .neitherGroupNorStatistic(let name): "'\(name)' is neither a group field nor an output statistic"
        case .notADistinctField(let name): "'\(name)' is not one of the distinct fields"
        case .noDistinctFields: "distinct values need the fields to make distinct"
        case .unknownGeneration(let generation): "generation \(generation) is not one this server handed out"
        case .notAPartId(let part): "'\(part)' is not a part id"
        case .partNotUploaded(let number): "part \(number) was not uploaded"
        case .noParts: "the item has no parts"
        case .partIdOutOfRange(let number): "part ids are 1 to 10000, not \(number)"
        case .alreadyCommitted(let item): "item \(item) is already committed"
        case .notCommitted(let item): "item \(item) is not committed"
        }
    }

    /// The answer, saying what was wrong without naming a parameter.
    public var arcGISError: ArcGISError { arcGISError(naming: nil) }

    /// The answer with the parameter that carried the value named, as ArcGIS words it. What
    /// a query cannot use answers as ArcGIS's invalid query; the rest as an invalid parameter.
    public func arcGISError(naming parameter: String?) -> ArcGISError {
        let detail = parameter.map { "'\($0)' parameter is invalid: \(description)" } ?? description
        switch self {
        case .unknownField, .invalidClause, .invalidGeometry, .notSpatial, .notNumeric, .outputNameTwice, .neitherGroupNorStatistic,
            .notADistinctField, .noDistinctFields:
            return .invalidQuery(detail)
        default:
            return ArcGISError(kind: .invalidParameter, message: "Invalid or missing input parameters.", details: [detail])
        }
    }

    /// Runs `body`; a value it refuses is answered naming the parameter `parameters` gives
    /// for it (left unnamed when none does). For the layer that read the request.
    public static func naming<T>(_ parameters: [Value: String], _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let refusal as StorageRefusal {
            guard let parameter = parameters[refusal.value] else { throw refusal }
            throw refusal.arcGISError(naming: parameter)
        }
    }
}
