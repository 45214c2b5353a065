import Foundation
import Hummingbird
import OutpostWire

/// Records every request outside the control API in a test target's journal once it is
/// answered. Outermost but for the request log, so it sees every answer, errors included;
/// the inner layers add what only they know through `context.record` (the form, the error
/// code, the replica, the generations, the fault).
struct RequestJournalMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext
    let journal: RequestJournal

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !TestTargetPaths.isControl(request.uri.path) else { return try await next(request, context) }
        context.record.startJournaling()
        let time = journal.clock.milliseconds()
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            journal.record(entry(request, context, time: time, started: started, status: Int(response.status.code), response: response))
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            journal.record(entry(request, context, time: time, started: started, status: Int(status), response: nil))
            throw error
        }
    }

    func entry(
        _ request: Request, _ context: Context, time: Int64, started: ContinuousClock.Instant, status: Int, response: Response?
    ) -> JournalEntry {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let path = RequestPath(request.uri.path)
        let facts = context.record.journalSnapshot ?? JournalFacts()
        let query = JournalParameter.masked(pairs: FormURLEncoding.decode(request.uri.query ?? ""))
        let maskedQuery = query.map { "\(FormURLEncoding.percentEncode($0.name))=\(FormURLEncoding.percentEncode($0.value))" }
        let host = request.head.authority ?? "localhost"
        var entry = JournalEntry(
            time: time, method: request.method.rawValue, path: request.uri.path, operation: path.operation, service: path.service,
            layer: path.layer, status: status, durationMs: milliseconds)
        entry.parameters = facts.parameters
        entry.uploads = facts.uploads
        entry.errorCode = facts.errorCode
        entry.replicaId = context.record.snapshot.replicaId
        entry.generations = facts.generations
        entry.user = facts.user
        entry.fault = facts.fault
        entry.url =
            "\(request.uri.scheme?.rawValue ?? "http")://\(host)\(request.uri.path)"
            + (maskedQuery.isEmpty ? "" : "?" + maskedQuery.joined(separator: "&"))
        entry.query = query
        entry.requestHeaders = JournalParameter.masked(headers: request.headers.map { ($0.name.canonicalName, $0.value) })
        if let response {
            entry.responseHeaders = JournalParameter.masked(headers: response.headers.map { ($0.name.canonicalName, $0.value) })
            entry.responseBytes = response.body.contentLength
        }
        return entry
    }
}
