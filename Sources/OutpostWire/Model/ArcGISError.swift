/// An error as ArcGIS answers it: `{"error":{"code":400,"message":"…","details":["…"]}}`.
///
/// `kind` lets callers pattern-match without comparing message text; `code` is the
/// HTTP-like code that goes on the wire (ArcGIS sends it inside a 200 response).
public struct ArcGISError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
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
        /// The caller's role does not allow it.
        case forbidden
        /// A token was sent but is not valid (expired or unknown).
        case invalidToken
        /// The resource needs a token and none was sent.
        case tokenRequired
        /// The server cannot answer now (its database does not answer).
        case unavailable

        /// The envelope's `code`: one per kind, so the two never disagree.
        public var code: Int {
            switch self {
            case .invalidParameter, .missingParameter, .unsupported, .invalidData: 400
            case .forbidden: 403
            case .notFound: 404
            case .methodNotAllowed: 405
            case .conflict: 409
            case .tooLarge: 413
            case .tooManyRequests: 429
            case .invalidToken: 498
            case .tokenRequired: 499
            case .internalError: 500
            case .unavailable: 503
            }
        }

        /// The kind an envelope's `code` reads back as (a stored or received error).
        public init(code: Int) {
            self = Self.allCases.first { $0.code == code } ?? (code >= 500 ? .internalError : .invalidParameter)
        }
    }

    public var kind: Kind
    public var code: Int { kind.code }
    public var message: String
    public var details: [String]
    /// Seconds after which a retry may succeed (`Retry-After`), for `tooManyRequests`.
    public var retryAfterSeconds: Int?
    /// The OAuth 2.0 error code (`invalid_grant`, …) of a refusal by the portal's OAuth
    /// endpoints: the envelope then carries it as `error` and the message as
    /// `error_description` too, as ArcGIS answers them (docs/identity.md).
    public var oauthError: String?

    public init(kind: Kind, message: String, details: [String] = [], retryAfterSeconds: Int? = nil, oauthError: String? = nil) {
        self.kind = kind
        self.message = message
        self.details = details
        self.retryAfterSeconds = retryAfterSeconds
        self.oauthError = oauthError
    }

    public static func tooManyRequests(_ reason: String, retryAfterSeconds: Int) -> ArcGISError {
        ArcGISError(
            kind: .tooManyRequests, message: "Too many requests.", details: [reason],
            retryAfterSeconds: retryAfterSeconds)
    }

    public var description: String {
        details.isEmpty ? "\(message) (code \(code))" : "\(message) \(details.joined(separator: " ")) (code \(code))"
    }

    public static func invalidParameter(_ name: String, _ reason: String) -> ArcGISError {
        ArcGISError(
            kind: .invalidParameter, message: "Invalid or missing input parameters.",
            details: ["'\(name)' parameter is invalid: \(reason)"])
    }

    public static func missingParameter(_ name: String) -> ArcGISError {
        ArcGISError(
            kind: .missingParameter, message: "Invalid or missing input parameters.",
            details: ["'\(name)' parameter is required."])
    }

    public static func notFound(_ what: String) -> ArcGISError {
        ArcGISError(kind: .notFound, message: "\(what) not found.", details: [])
    }

    public static func unsupported(_ what: String) -> ArcGISError {
        ArcGISError(
            kind: .unsupported, message: "Unable to complete operation.",
            details: ["\(what) is not supported."])
    }

    public static func invalidQuery(_ reason: String) -> ArcGISError {
        ArcGISError(
            kind: .invalidParameter, message: "Unable to perform query. Please check your parameters.",
            details: [reason])
    }

    public static func internalError(_ reason: String) -> ArcGISError {
        ArcGISError(kind: .internalError, message: "Unable to complete operation.", details: [reason])
    }

    /// The error envelope as JSON.
    public var json: JSONValue {
        var envelope: JSONObject = ["code": .int(Int64(code)), "message": .string(message), "details": .array(details.map { .string($0) })]
        if let oauthError {
            envelope["error"] = .string(oauthError)
            envelope["error_description"] = .string(message)
        }
        return ["error": .object(envelope)]
    }
}

/// An error that knows the ArcGIS error it answers as. Every error a request or a job can
/// meet adopts it; the HTTP layer renders `arcGISError` (no downcasts), and logs whole any
/// error that answers as a server fault (5xx).
public protocol ArcGISErrorConvertible: Error {
    var arcGISError: ArcGISError { get }
}

extension ArcGISError: ArcGISErrorConvertible {
    public var arcGISError: ArcGISError { self }
}

extension ArcGISError {
    /// The ArcGIS error any error answers as: its own when it knows one, else an internal
    /// error that names nothing of the server's internals.
    public init(answering error: any Error) {
        self =
            (error as? any ArcGISErrorConvertible)?.arcGISError
            ?? .internalError("An unexpected error occurred; the server log has its details.")
    }
}
