/// An error as ArcGIS answers it: `{"error":{"code":400,"message":"…","details":["…"]}}`.
///
/// `kind` lets callers pattern-match without comparing message text; `code` is the
/// HTTP-like code that goes on the wire (ArcGIS sends it inside a 200 response).
public struct ArcGISError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        case invalidParameter
        case missingParameter
        case notFound
        case unsupported
        case methodNotAllowed
        case tooLarge
        case invalidData
        case conflict
        case internalError
        /// The server is at a limit (jobs queued, sign-in attempts): retry later. HTTP 429.
        case tooManyRequests
    }

    public var kind: Kind
    public var code: Int
    public var message: String
    public var details: [String]
    /// Seconds after which a retry may succeed (`Retry-After`), for `tooManyRequests`.
    public var retryAfterSeconds: Int?

    public init(kind: Kind, code: Int, message: String, details: [String] = [], retryAfterSeconds: Int? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.details = details
        self.retryAfterSeconds = retryAfterSeconds
    }

    public static func tooManyRequests(_ reason: String, retryAfterSeconds: Int) -> ArcGISError {
        ArcGISError(kind: .tooManyRequests, code: 429, message: "Too many requests.", details: [reason],
                    retryAfterSeconds: retryAfterSeconds)
    }

    public var description: String {
        details.isEmpty ? "\(message) (code \(code))" : "\(message) \(details.joined(separator: " ")) (code \(code))"
    }

    public static func invalidParameter(_ name: String, _ reason: String) -> ArcGISError {
        ArcGISError(kind: .invalidParameter, code: 400, message: "Invalid or missing input parameters.",
                    details: ["'\(name)' parameter is invalid: \(reason)"])
    }

    public static func missingParameter(_ name: String) -> ArcGISError {
        ArcGISError(kind: .missingParameter, code: 400, message: "Invalid or missing input parameters.",
                    details: ["'\(name)' parameter is required."])
    }

    public static func notFound(_ what: String) -> ArcGISError {
        ArcGISError(kind: .notFound, code: 404, message: "\(what) not found.", details: [])
    }

    public static func unsupported(_ what: String) -> ArcGISError {
        ArcGISError(kind: .unsupported, code: 400, message: "Unable to complete operation.",
                    details: ["\(what) is not supported."])
    }

    public static func invalidQuery(_ reason: String) -> ArcGISError {
        ArcGISError(kind: .invalidParameter, code: 400, message: "Unable to perform query. Please check your parameters.",
                    details: [reason])
    }

    public static func internalError(_ reason: String) -> ArcGISError {
        ArcGISError(kind: .internalError, code: 500, message: "Unable to complete operation.", details: [reason])
    }

    /// The error envelope as JSON.
    public var json: JSONValue {
        ["error": ["code": .int(Int64(code)), "message": .string(message), "details": .array(details.map { .string($0) })]]
    }
}
