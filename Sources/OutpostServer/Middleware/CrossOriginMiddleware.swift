import HTTPTypes
import Hummingbird
import OutpostWire

/// Applies the `CrossOriginPolicy` to every request, outermost but for the request log and the
/// security headers: a preflight is answered here, a refused page gets ArcGIS's 403 envelope
/// without being routed, an allowed origin its headers on whatever answer it gets — errors and
/// 404s included, so a web client can read why it failed. Every answer says it varies by
/// `Origin`, so no cache hands one origin's answer to another.
struct CrossOriginMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext

    let policy: CrossOriginPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A test target's control API is no web API: no page elsewhere is let read it
        // (`ControlAPIGuard` refuses foreign origins), preflights included.
        if TestTargetPaths.isControl(String((request.head.path ?? "/").prefix { $0 != "?" })) {
            if let options = Self.answerPlainOptions(request) { return options }
            return try await next(request, context)
        }
        let decision = policy.decide(Self.described(request.head))
        switch decision {
        case .route:
            var response: Response
            if let options = Self.answerPlainOptions(request) {
                response = options
            } else {
                response = try await next(request, context)
            }
            response.headers.append(HTTPField(name: .vary, value: "Origin"))
            return response
        case .preflight(let headers):
            var headers = headers
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers)
        case .refuse(let origin):
            let error = ArcGISError(
                kind: .forbidden, message: "Cross-origin request not allowed.",
                details: ["The page's origin (\(origin.prefix(200))) is not among this server's allowed origins."])
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

    /// What the policy reads of a request.
    static func described(_ head: HTTPRequest) -> CrossOriginPolicy.Request {
        CrossOriginPolicy.Request(
            method: head.method, path: head.path ?? "/", origin: head.headerFields[.origin], host: head.authority,
            fetchSite: head.headerFields[.secFetchSite], referer: head.headerFields[.referer],
            requestedMethod: head.headerFields[.accessControlRequestMethod], requestedHeaders: head.headerFields[.accessControlRequestHeaders])
    }

    /// An `OPTIONS` that is not a preflight: what the resource allows (every route answers
    /// GET and POST), rather than a 404.
    private static func answerPlainOptions(_ request: Request) -> Response? {
        guard request.method == .options else { return nil }
        return Response(status: .ok, headers: [.allow: CrossOriginPolicy.allowedMethods, .contentLength: "0"])
    }
}

extension HTTPField.Name {
    /// Fetch metadata: which site the page that sent a browser's request belongs to.
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}
