import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OutpostWire
import Synchronization

/// The home's only way to the data: requests to the server's own REST API, answered by the
/// same router, middleware and handlers a client's are (admission, rights, limits, the log,
/// a test target's journal and faults), in process. The signed-in user's token goes as
/// `X-Esri-Authorization`, never as a cookie: the REST API reads no cookies, so a page on
/// another site can make it do nothing in the user's name.
final class HomeGateway: Sendable {
    /// The router's responder, set once the router holds every route (the home is among them).
    private let responder = Mutex<RouterResponder<OutpostRequestContext>?>(nil)
    let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func install(_ responder: RouterResponder<OutpostRequestContext>) { self.responder.withLock { $0 = responder } }

    /// The answer of one sub-request: its status, headers and whole body.
    struct Answer: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: ByteBuffer

        var text: String { String(buffer: body) }
    }

    /// Largest answer a page reads whole (a service's JSON with its layers, a listing page).
    static let maximumAnswerBytes = 32 << 20

    /// A request to `path` (from the server's root, `/arcgis/…`) as `session`'s user, on the
    /// connection of the page's request `original` (its address counts for per-address limits).
    func send(
        _ method: HTTPRequest.Method, _ path: String, form: [(String, String)] = [], file: HomeUpload? = nil, session: HomeSession,
        original: Request, context: OutpostRequestContext
    ) async throws -> Answer {
        var fields = Self.fields(session)
        fields[.accept] = "application/json"
        let encoded = HomeGateway.formEncoded([("f", "json")] + form)
        var target = path
        var requestBody = RequestBody(buffer: ByteBuffer())
        if let file {
            // A file goes as a client sends one: multipart, streamed from where the page's request left it.
            let body = try file.multipart(fields: [("f", "json")] + form)
            fields[.contentType] = "multipart/form-data; boundary=\(body.boundary)"
            fields[.contentLength] = String(body.length)
            requestBody = RequestBody(asyncSequence: body.parts)
        } else if method == .get {
            target += "?" + encoded
        } else {
            fields[.contentType] = "application/x-www-form-urlencoded"
            fields[.contentLength] = String(encoded.utf8.count)
            requestBody = RequestBody(buffer: ByteBuffer(string: encoded))
        }
        let response = try await respond(method, target, fields, requestBody, original: original, context: context)
        let collected = Collected()
        try await response.body.write(Collector(into: collected, limit: Self.maximumAnswerBytes))
        return Answer(status: response.status, headers: response.headers, body: collected.buffer.withLock { $0 })
    }

    /// The REST API's answer to a GET of `path` as `session`'s user, passed on as it streams
    /// (a file: a backup's download), with what the home's pages send besides.
    func passThrough(_ path: String, session: HomeSession, original: Request, context: OutpostRequestContext) async throws -> Response {
        var response = try await respond(.get, path, Self.fields(session), RequestBody(buffer: ByteBuffer()), original: original, context: context)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The headers every sub-request carries: the user's token and who asks.
    private static func fields(_ session: HomeSession) -> HTTPFields {
        var fields = HTTPFields()
        if let token = session.token { fields[.init("X-Esri-Authorization")!] = "Bearer \(token)" }
        fields[.userAgent] = "Outpost home"
        return fields
    }

    /// One sub-request through the router, on the page's connection (which it does not own).
    private func respond(
        _ method: HTTPRequest.Method, _ target: String, _ fields: HTTPFields, _ body: RequestBody, original: Request, context: OutpostRequestContext
    ) async throws -> Response {
        guard let responder = responder.withLock({ $0 }) else { throw HomeFailure(message: "The server is starting.", code: 503) }
        let head = HTTPRequest(method: method, scheme: original.head.scheme, authority: original.head.authority, path: target, headerFields: fields)
        var context = OutpostRequestContext(source: ApplicationRequestContextSource(channel: context.channel, logger: logger))
        context.ownsConnection = false
        return try await responder.respond(to: Request(head: head, body: body), context: context)
    }

    /// A JSON answer, or the ArcGIS error it carries (as the status or as a 200 envelope)
    /// thrown as a `HomeFailure`.
    func json(
        _ method: HTTPRequest.Method, _ path: String, _ form: [(String, String)] = [], file: HomeUpload? = nil,
        session: HomeSession, original: Request, context: OutpostRequestContext
    ) async throws -> JSONValue {
        let answer = try await send(method, path, form: form, file: file, session: session, original: original, context: context)
        let json = try? JSONParser.parse(answer.text)
        if let error = json?["error"], error.objectValue != nil {
            throw HomeFailure(envelope: error, status: Int(answer.status.code))
        }
        guard let json, (200..<300).contains(answer.status.code) else {
            throw HomeFailure(message: "The server answered \(answer.status.code).", code: Int(answer.status.code))
        }
        return json
    }

    static func formEncoded(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(percentEncoded($0.0))=\(percentEncoded($0.1))" }.joined(separator: "&")
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Where a collector puts the body (the writer is consumed by the body it writes).
    private final class Collected: Sendable {
        let buffer = Mutex(ByteBuffer())
    }

    /// Gathers an answer's body, refusing one longer than `limit`.
    private struct Collector: ResponseBodyWriter {
        let into: Collected
        let limit: Int

        mutating func write(_ part: ByteBuffer) async throws {
            try into.buffer.withLock { buffer in
                guard buffer.readableBytes + part.readableBytes <= limit else {
                    throw HomeFailure(message: "The answer is too large to show on a page.", code: 413)
                }
                var part = part
                buffer.writeBuffer(&part)
            }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}

/// What a sub-request refused, as ArcGIS said it: shown to the user as it is.
struct HomeFailure: Error, Sendable, Equatable {
    var message: String
    var code: Int
    var details: [String] = []

    init(message: String, code: Int, details: [String] = []) {
        self.message = message
        self.code = code
        self.details = details
    }

    init(envelope: JSONValue, status: Int) {
        message = envelope["message"]?.stringValue ?? "The request failed."
        code = envelope["code"]?.int64Value.map { Int($0) } ?? status
        details = envelope["details"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The message and its details, as one line.
    var text: String { ([message] + details.filter { $0 != message }).joined(separator: " ") }
}
