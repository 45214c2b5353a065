import Hummingbird
import Logging
import OutpostWire

/// Every failure of an ArcGIS route as the ArcGIS error envelope (`ArcGISErrorConvertible`,
/// JSON or JSONP as asked, HTTP 200 but for 413 and 429). A request refused before its body
/// was read is not read on: the connection's input is closed and the answer says
/// `Connection: close`.
struct ErrorEnvelopeMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext

    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let answer = RESTResponse.arcGISError(from: error, logger: logger)
            context.record.note(errorCode: answer.code)
            var response = RESTResponse.error(answer, parameters: context.exchange.parameters)
            if !context.exchange.bodyRead && request.mayHaveBody && context.ownsConnection {
                context.stopReadingBody()
                response.headers[.connection] = "close"
            }
            return response
        }
    }
}
