import Hummingbird

/// The services directory (`f=html`, or a browser's request): every answer of an ArcGIS
/// route, error envelopes included, rendered from its own JSON as a page. Outermost, so it
/// sees what the envelope made of a failure.
struct HTMLDirectoryMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        let parameters = context.exchange.parameters
        if MapPreview.wanted(parameters), response.status == .ok,
            let page = try? await MapPreview.servicePage(for: response, path: request.uri.path, token: parameters.string("token"))
        {
            return page
        }
        guard HTMLDirectory.wanted(request, parameters) else { return response }
        return (try? await HTMLDirectory.page(for: response, path: request.uri.path, parameters: parameters)) ?? response
    }
}

/// An operation's page asked for without parameters (`GET …/query?f=html`) is its blank
/// form: answered before the operation runs. Inside the admission, which read the form.
struct HTMLFormMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let parameters = context.form.parameters
        if request.method == .get, HTMLDirectory.wanted(request, parameters), HTMLDirectory.operation(at: request.uri.path) != nil,
            HTMLDirectory.asksForFormOnly(parameters)
        {
            return HTMLDirectory.formPage(path: request.uri.path, parameters: parameters)
        }
        return try await next(request, context)
    }
}
