import OutpostWire

/// An OfflinePackaging error as Esri's packager reports it (offline-maps.md §2.1): a JSON
/// string `{"code":n,"messageCode":"OffPkg_n","message":…,"params":{…}}`, numbered as ArcGIS
/// numbers them, carried by a failed job's error message or a package's `error`.
public struct PackagingError: Error, Equatable, Sendable, ArcGISErrorConvertible {
    public enum Code: Int, Sendable {
        case syncNotEnabled = 23
        case invalidParameter = 24
        case exceedingMapAreas = 25
        case areaMissing = 26
        case mapAreaExists = 27
        case exportTileError = 35
        case createPackageDeltaNotSupported = 37
    }

    public var code: Code
    public var message: String
    public var params: [String: String]

    public init(_ code: Code, _ message: String, params: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.params = params
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "code": .int(Int64(code.rawValue)), "messageCode": .string("OffPkg_\(code.rawValue)"), "message": .string(message),
        ]
        if !params.isEmpty { object["params"] = .object(JSONObject(params.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })) }
        return .object(object)
    }

    public var arcGISError: ArcGISError {
        ArcGISError(kind: .invalidParameter, message: json.jsonText, details: [message])
    }

    // MARK: The errors the planner raises

    public static func invalid(_ parameter: String, _ reason: String) -> PackagingError {
        PackagingError(.invalidParameter, "Parameter \(parameter) is invalid or exceeded limit. \(reason)", params: ["param": parameter])
    }

    public static func exceeding(limit: Int) -> PackagingError {
        PackagingError(.exceedingMapAreas, "The web map already has \(limit) map areas, the most allowed.", params: ["limit": String(limit)])
    }

    public static let exists = PackagingError(.mapAreaExists, "A map area with the same area exists already.")
}
