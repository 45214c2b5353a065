import HTTPTypes
import Hummingbird
import NIOCore
import OutpostWire
import ServiceLifecycle

/// Applies the fault rules to the requests they match, once admitted (the form parsed): a
/// reset closes the connection unanswered; a latency waits before the route runs; an error
/// is answered as the route would (the envelope, HTTP 200 unless the rule gives a status);
/// a job fault arms the job the route submits; a bandwidth or a cut shapes the answer's body.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext
    let board: FaultBoard

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var parameters: [String: String] = [:]
        for name in context.form.parameters.names { parameters[name] = context.form.parameters[name] }
        let facts = RequestFacts(method: request.method.rawValue, path: request.uri.path, parameters: parameters)
        guard let decision = board.decide(for: facts) else { return try await next(request, context) }
        context.record.note(fault: decision.ruleId)
        if decision.reset {
            // Closed now; the answer's body fails at once so nothing is written after it.
            context.channel.close(promise: nil)
            return Response(status: .ok, body: ResponseBody { _ in throw BodyShaping.Cut() })
        }
        if decision.latencyMilliseconds > 0 { await BodyShaping.wait(for: .milliseconds(decision.latencyMilliseconds)) }
        if let error = decision.error {
            context.record.note(errorCode: error.code)
            var response = RESTResponse.json(error.envelope, parameters: context.form.parameters)
            if let status = error.httpStatus { response.status = HTTPResponse.Status(code: status) }
            return try await Self.shaped(response, by: decision, channel: context.channel)
        }
        let response = try await FaultBoard.$firedJobFault.withValue(decision.job) { try await next(request, context) }
        return try await Self.shaped(response, by: decision, channel: context.channel)
    }

    /// The response with its body slowed to the bandwidth and cut after the bytes or fraction
    /// given: the `Content-Length` stays the whole answer's, so a client sees the truncation.
    static func shaped(_ response: Response, by decision: FaultDecision, channel: any Channel) async throws -> Response {
        guard decision.bandwidth != nil || decision.cutAfterBytes != nil || decision.cutAfterFraction != nil else { return response }
        var response = response
        var body = response.body
        var length = body.contentLength ?? response.headers[.contentLength].flatMap { Int($0) }
        if length == nil && decision.cutAfterFraction != nil {
            // The fraction of an answer of unknown length: collect it first to know the length.
            let collector = BodyCollector()
            try await body.write(collector)
            let whole = collector.buffer
            length = whole.readableBytes
            body = ResponseBody(byteBuffer: whole)
        }
        let cut = decision.cutAfterBytes ?? decision.cutAfterFraction.map { fraction in Int(Double(length ?? 0) * fraction) }
        let shaping = BodyShaping(bytesPerSecond: decision.bandwidth, cutAfter: cut, channel: channel)
        let original = body
        response.body = ResponseBody(contentLength: length) { writer in
            try await shaping.write(original, to: &writer)
        }
        if let length { response.headers[.contentLength] = String(length) }
        return response
    }
}
