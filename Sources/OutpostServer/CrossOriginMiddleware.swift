import HTTPTypes
import Hummingbird
import OutpostWire

/// Applies the `CrossOriginPolicy` to every request, outermost but for the request log: a
/// preflight is answered here, a refused origin gets ArcGIS's 403 envelope without being
/// routed, an allowed one its headers on whatever answer it gets — errors and 404s included,
/// so a web client can read why it failed.
struct CrossOriginMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext

    let policy: CrossOriginPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let decision = policy.decide(
            method: request.method, origin: request.headers[.origin], host: request.head.authority,
            path: request.uri.path, requestedMethod: request.headers[.accessControlRequestMethod],
            requestedHeaders: request.headers[.accessControlRequestHeaders])
        switch decision {
        case .sameOrigin:
            if let options = Self.answerPlainOptions(request) { return options }
            return try await next(request, context)
        case .preflight(let headers):
            var headers = headers
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers)
        case .refuse(let origin):
            let error = ArcGISError(
                kind: .forbidden, message: "Cross-origin request not allowed.",
                details: ["The origin \(origin.prefix(200)) is not in this server's allowed origins."])
            return RESTResponse.error(error)
        case .allow(let headers):
            var response: Response
            do {
                if let options = Self.answerPlainOptions(request) {
                    response = options
                } else {
                    response = try await next(request, context)
                }
            } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            }
            response.headers.append(contentsOf: headers)
            return response
        }
    }

    /// An `OPTIONS` that is not a preflight: what the resource allows (every route answers
    /// GET and POST), rather than a 404.
    private static func answerPlainOptions(_ request: Request) -> Response? {
        guard request.method == .options else { return nil }
        return Response(status: .ok, headers: [.allow: CrossOriginPolicy.allowedMethods, .contentLength: "0"])
    }
}
