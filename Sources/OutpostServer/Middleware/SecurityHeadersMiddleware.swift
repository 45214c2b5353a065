import HTTPTypes
import Hummingbird

/// Headers that keep a browser from doing more with an answer than showing it: no content
/// sniffing on any answer; on HTML pages a content security policy (no script at all, the
/// page's own inline style, forms posting only back here), no framing and no referrer. A map
/// preview keeps the policy it brings: scripts, styles, tiles and queries from this server only.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext

    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        if response.headers[.contentType]?.hasPrefix("text/html") == true {
            if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy }
            response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
            // A page may keep its own: the home's forms need the browser's `Origin` (which
            // `no-referrer` turns to `null` on a POST).
            if response.headers[HTTPField.Name("Referrer-Policy")!] == nil { response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer" }
        }
        return response
    }
}
