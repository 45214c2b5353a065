import Foundation
import OutpostWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Talks to one FeatureServer over HTTP(S) through an `HTTPTransport`: JSON resources, forms,
/// uploads and ranged downloads, with an optional token, riding out network loss.
///
/// Transient failures (no connection, connection lost, timeouts, 502/503/504) are retried
/// with backoff until `retryWindow` has passed since the first failure (default 10 minutes),
/// then surface as `ClientError.network`. Every request the library retries is harmless to
/// repeat: reads, and syncs, which the server answers from its receipt when it has seen them.
public struct ServiceConnection: Sendable {
    /// The FeatureServer URL (`…/rest/services/<name>/FeatureServer`).
    public let serviceURL: URL
    /// Sent as `token` and as `X-Esri-Authorization: Bearer`.
    public var token: String?
    public var retryWindow: Duration
    /// The first wait after a transient failure (doubling, at most 10 s).
    public var retryDelay: Duration = .milliseconds(250)
    public let transport: any HTTPTransport

    public init(
        serviceURL: URL, token: String? = nil, retryWindow: Duration = .seconds(600), allowsUntrustedCertificates: Bool = false,
        transport: (any HTTPTransport)? = nil
    ) {
        var text = serviceURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        self.serviceURL = URL(string: text) ?? serviceURL
        self.token = token
        self.retryWindow = retryWindow
        self.transport = transport ?? URLSessionTransport(allowsUntrustedCertificates: allowsUntrustedCertificates)
    }

    /// A resource under the service (`"createReplica"`, `"0/query"`, `"replicas/{id}"`).
    public func url(_ path: String) -> URL {
        path.isEmpty ? serviceURL : serviceURL.appendingPathComponent(path)
    }

    // MARK: JSON

    public func getJSON(_ url: URL, _ query: [(String, String)] = []) async throws -> JSONValue {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = FormEncoding.encode([("f", "json")] + query + tokenField)
        var request = URLRequest(url: components.url!)
        request.httpMethod = "GET"
        return try await json(request)
    }

    public func postForm(_ url: URL, _ fields: [(String, String)]) async throws -> JSONValue {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(FormEncoding.encode([("f", "json")] + fields + tokenField).utf8)
        return try await json(request)
    }

    /// Uploads a file to the service's `uploads` and returns its item id.
    public func upload(file: URL, contentType: String) async throws -> String {
        let boundary = "outpost-" + UUID().uuidString
        var body = Data()
        func field(_ name: String, _ value: String) {
            body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        field("f", "json")
        if let token { field("token", token) }
        body.append(
            Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(file.lastPathComponent)\"\r\nContent-Type: \(contentType)\r\n\r\n"
                    .utf8))
        body.append(try Data(contentsOf: file))
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        var request = URLRequest(url: url("uploads/upload"))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let answer = try await json(request)
        guard let itemID = answer["item"]?["itemID"]?.stringValue else { throw ClientError.invalidResponse("the upload answer names no item") }
        return itemID
    }

    // MARK: Files

    /// Bytes `offset…` of a file the server handed out, at most `length`; with the file's
    /// total size when the server said it.
    public func download(_ url: URL, offset: Int, length: Int) async throws -> (data: Data, total: Int?) {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("bytes=\(offset)-\(offset + length - 1)", forHTTPHeaderField: "Range")
        let (data, response) = try await send(request, ranged: true)
        switch response.statusCode {
        case 206:
            let total = (response.value(forHTTPHeaderField: "Content-Range")?.split(separator: "/").last).flatMap { Int($0) }
            return (data, total)
        case 200:
            // No range support: the whole file; keep what was asked for.
            let slice = offset < data.count ? data.subdata(in: offset..<min(data.count, offset + length)) : Data()
            return (slice, data.count)
        default:
            if let error = (try? JSONParser.parse(bytes: [UInt8](data))).flatMap(ClientError.fromEnvelope) { throw error }
            throw ClientError.http(status: response.statusCode, url: url.absoluteString)
        }
    }

    /// Downloads a whole file to `path` in ranges of `chunk` bytes, writing it beside `path`
    /// first and renaming it into place when complete (nothing at `path` is half written).
    public func downloadFile(_ url: URL, to path: String, chunk: Int = 4 << 20) async throws -> Int64 {
        let partial = path + ".part"
        FileManager.default.createFile(atPath: partial, contents: nil)
        var received = 0
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
            defer { try? handle.close() }
            while true {
                try Task.checkCancellation()
                let (data, total) = try await download(url, offset: received, length: chunk)
                try handle.write(contentsOf: data)
                received += data.count
                if data.isEmpty || total == nil || received >= total! { break }
            }
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        // rename(2): atomic, over an existing file or not.
        guard rename(partial, path) == 0 else {
            try? FileManager.default.removeItem(atPath: partial)
            throw ClientError.geodatabase("could not put the download at \(path) (errno \(errno))")
        }
        return Int64(received)
    }

    // MARK: Plumbing

    private var tokenField: [(String, String)] { token.map { [("token", $0)] } ?? [] }

    private func json(_ request: URLRequest) async throws -> JSONValue {
        let (data, response) = try await send(request)
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes: [UInt8](data))
        } catch {
            if !(200..<300).contains(response.statusCode) {
                throw ClientError.http(status: response.statusCode, url: request.url?.absoluteString ?? "")
            }
            throw ClientError.invalidResponse("not JSON from \(request.url?.absoluteString ?? "")")
        }
        if let error = ClientError.fromEnvelope(json) { throw error }
        guard (200..<300).contains(response.statusCode) else {
            throw ClientError.http(status: response.statusCode, url: request.url?.absoluteString ?? "")
        }
        return json
    }

    /// Sends with retries for transient failures within the retry window.
    /// `ranged`: a download whose answer, cut on the way, counts as far as it came (a range
    /// of 206 only: the caller asks for the rest from the next byte).
    func send(_ original: URLRequest, ranged: Bool = false) async throws -> (Data, HTTPURLResponse) {
        var request = original
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "X-Esri-Authorization") }
        let clock = ContinuousClock()
        var firstFailure: ContinuousClock.Instant?
        var delay = retryDelay
        while true {
            try Task.checkCancellation()
            var failure: String
            // A server at a limit (429) says when to come back: it did nothing, so the same
            // request is sent again then (at least 1 s, at most 60 s later).
            var retryAfter: Duration?
            do {
                let (data, http) = try await ranged ? transport.rangedData(for: request) : transport.data(for: request)
                if http.statusCode == 429 {
                    let seconds = http.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 1
                    retryAfter = .seconds(min(max(seconds, 1), 60))
                } else if ![502, 503, 504].contains(http.statusCode) {
                    return (data, http)
                }
                failure = "HTTP \(http.statusCode)"
            } catch TransportError.unreachable(let reason) {
                failure = reason
            } catch TransportError.cut(let received, let status, let headers) {
                if status == 206, !received.isEmpty, let url = request.url,
                    let http = HTTPURLResponse(url: url, statusCode: 206, httpVersion: "HTTP/1.1", headerFields: headers)
                {
                    return (received, http)
                }
                failure = "connection lost after \(received.count) bytes"
            }
            let now = clock.now
            let started = firstFailure ?? now
            firstFailure = started
            if now - started >= retryWindow { throw ClientError.network("\(failure) (retried for \(retryWindow))") }
            if let retryAfter {
                try await Task.sleep(for: retryAfter)
            } else {
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(10))
            }
        }
    }

}

/// Form encoding (`application/x-www-form-urlencoded`).
enum FormEncoding {
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
