import Hummingbird

/// Records every request outside the control API in the journal (stub: the journal helper's).
struct RequestJournalMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext
    let journal: RequestJournal

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await next(request, context)
    }
}
