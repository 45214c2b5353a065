import HTTPTypes
import Hummingbird
import OutpostWire

/// Keeps a request's `Host` from writing what it likes into answers (`ServerOrigin`): a `Host`
/// that is no `host[:port]` is refused before routing; without a `public-url`, where the URLs
/// an answer names come from the `Host`, an answer that sets no caching of its own (JSON,
/// JSONP, HTML) says `Cache-Control: no-store`, so no cache hands one request's URLs to another.
struct ServerOriginMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext

    let origin: ServerOrigin

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let host = request.head.authority, ServerAddress(scheme: origin.servedScheme, authority: host) == nil {
            return RESTResponse.error(
                ArcGISError(
                    kind: .invalidParameter, message: "Invalid Host.", details: ["The Host header is not a host name or address with a port."]))
        }
        var response = try await next(request, context)
        if origin.publicURL == nil, response.headers[.cacheControl] == nil, let type = response.headers[.contentType],
            ["application/json", "text/html", "application/javascript", "text/javascript"].contains(where: { type.hasPrefix($0) })
        {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }
}
