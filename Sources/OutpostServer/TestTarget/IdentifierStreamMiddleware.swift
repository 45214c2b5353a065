import Hummingbird
import OutpostWire

/// Under `--seed`, a request draws its ids from its service's stream (`IdentifierSeed`), so a
/// client working on several services at once gets the same ids for each on every run.
struct IdentifierStreamMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await IdentifierSeed.$stream.withValue(RequestPath(request.uri.path).service ?? "") { try await next(request, context) }
    }
}
