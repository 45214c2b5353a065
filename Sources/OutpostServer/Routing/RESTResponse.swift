import Hummingbird
import Logging
import OutpostStorage
import OutpostWire

/// Builds ArcGIS-style responses: JSON (compact or `pjson`), JSONP with `callback`, and the
/// error envelope, which ArcGIS sends with HTTP 200.
enum RESTResponse {
    static func json(_ bytes: [UInt8], parameters: RequestParameters, contentType: String = "application/json; charset=utf-8") -> Response {
        var body = bytes
        var type = contentType
        if let callback = parameters.string("callback"), isSafeCallback(callback) {
            body = Array("\(callback)(".utf8) + bytes + Array(");".utf8)
            type = "application/javascript; charset=utf-8"
        }
        return Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func json(_ value: JSONValue, parameters: RequestParameters) -> Response {
        let pretty = parameters.string("f")?.lowercased() == "pjson"
        var writer = JSONWriter(pretty: pretty)
        writer.value(value)
        return json(writer.bytes, parameters: parameters)
    }

    /// The envelope, sent with HTTP 200 as ArcGIS does, except where a client or proxy must
    /// act on the status itself: 413 (body too large) and 429 (with `Retry-After`).
    static func error(_ error: ArcGISError, parameters: RequestParameters = RequestParameters()) -> Response {
        var response = json(error.json, parameters: parameters)
        switch error.kind {
        case .tooLarge: response.status = .contentTooLarge
        case .tooManyRequests:
            response.status = .tooManyRequests
            if let seconds = error.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        default: break
        }
        return response
    }

    /// Maps any error thrown by a handler to the envelope; unknown errors are internal.
    static func error(from error: any Error, parameters: RequestParameters = RequestParameters(), logger: Logger? = nil) -> Response {
        self.error(arcGISError(from: error, logger: logger), parameters: parameters)
    }

    /// The ArcGIS error an error answers as (a request's or a job's). A database error or an
    /// unexpected one is logged whole but answered without SQL, table names or internals.
    static func arcGISError(from error: any Error, logger: Logger?) -> ArcGISError {
        let answer = ArcGISError(answering: error)
        if answer.code >= 500 { logger?.error("server fault: \(String(reflecting: error))") }
        return answer
    }

    /// JSONP callbacks are identifiers (with dots), never script.
    static func isSafeCallback(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 128
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "." || $0 == "$")
            }
    }
}
