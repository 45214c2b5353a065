import Hummingbird

/// Applies the fault rules to the requests they match (stub: the fault helper's).
struct FaultMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext
    let board: FaultBoard

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await next(request, context)
    }
}
