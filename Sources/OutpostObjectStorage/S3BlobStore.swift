import Foundation
import OutpostStorage

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Objects in a bucket of an S3-compatible store (AWS S3, MinIO, Ceph, rclone…), path-style
/// addressing (`<endpoint>/<bucket>/<key>`), every request signed with AWS Signature
/// Version 4 (`S3Signer`). `ifAbsent` asks first and then sends `If-None-Match: *`, so a
/// store that honours the header (S3) also refuses a racing writer; one that ignores it
/// (rclone) still refuses a key taken before.
public struct S3BlobStore: BlobStore {
    public var endpoint: URL
    public var bucket: String
    public var signer: S3Signer
    let session: URLSession

    public init(endpoint: URL, bucket: String, signer: S3Signer) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.signer = signer
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        session = URLSession(configuration: configuration)
    }

    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    /// One signed request: the path `/<bucket>[/<key>]`, the query, extra headers, the body.
    func send(
        _ method: String, key: String?, query: [(String, String)] = [], headers extra: [String: String] = [:], body: Data = Data()
    ) throws -> Answer {
        if let key { try BlobKey.check(key) }
        let path = "/\(bucket)" + (key.map { "/\($0)" } ?? "")
        var components = URLComponents()
        components.scheme = endpoint.scheme
        components.host = endpoint.host
        components.port = endpoint.port
        components.percentEncodedPath = S3Signer.encode(path, keepSlashes: true)
        if !query.isEmpty {
            components.percentEncodedQuery = query.map { "\(S3Signer.encode($0.0))=\(S3Signer.encode($0.1))" }.joined(separator: "&")
        }
        guard let url = components.url, let host = endpoint.host else { throw BlobStoreError.failed("bad endpoint \(endpoint)") }
        let payloadHash = S3Signer.hash(body)
        let timestamp = S3Signer.timestamp(Date())
        var signed = extra
        signed["host"] = endpoint.port.map { "\(host):\($0)" } ?? host
        signed["x-amz-date"] = timestamp
        signed["x-amz-content-sha256"] = payloadHash
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in signed where name != "host" { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue(
            signer.authorization(method: method, path: path, query: query, headers: signed, payloadHash: payloadHash, timestamp: timestamp),
            forHTTPHeaderField: "Authorization")
        if method == "PUT" {
            // Without it Foundation labels a body as a form, which some stores then swallow.
            request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        let (data, response, failure) = exchange(request)
        if let failure { throw BlobStoreError.failed("\(method) \(path): \(failure)") }
        guard let http = response as? HTTPURLResponse else { throw BlobStoreError.failed("\(method) \(path): no HTTP answer") }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return Answer(status: http.statusCode, headers: headers, body: data)
    }

    /// One request, waited for: URLSession answers on its own queue, so the wait blocks only
    /// the calling (store) thread and never needs a cooperative one to finish.
    private func exchange(_ request: URLRequest) -> (Data, URLResponse?, (any Error)?) {
        final class Outcome: @unchecked Sendable {
            var data = Data()
            var response: URLResponse?
            var error: (any Error)?
        }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            outcome.data = data ?? Data()
            outcome.response = response
            outcome.error = error
            done.signal()
        }.resume()
        done.wait()
        return (outcome.data, outcome.response, outcome.error)
    }

    /// A 2xx answer, or the store's error as `BlobStoreError`.
    func checked(_ answer: Answer, key: String?) throws -> Answer {
        switch answer.status {
        case 200..<300: return answer
        case 404: throw BlobStoreError.notFound(key ?? bucket)
        case 412: throw BlobStoreError.exists(key ?? bucket)
        default:
            let reason = S3XML.error(String(decoding: answer.body, as: UTF8.self)) ?? "HTTP \(answer.status)"
            throw BlobStoreError.failed(reason)
        }
    }

    public func put(_ key: String, bytes: [UInt8], ifAbsent: Bool) throws -> BlobInfo {
        try put(key, data: Data(bytes), ifAbsent: ifAbsent)
    }

    public func put(_ key: String, from file: String, ifAbsent: Bool) throws -> BlobInfo {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped) } catch {
            throw BlobStoreError.failed("cannot read \(file): \(error)")
        }
        let info = try put(key, data: data, ifAbsent: ifAbsent)
        try? FileManager.default.removeItem(atPath: file)
        return info
    }

    private func put(_ key: String, data: Data, ifAbsent: Bool) throws -> BlobInfo {
        if ifAbsent, try info(key) != nil { throw BlobStoreError.exists(key) }
        _ = try checked(try send("PUT", key: key, headers: ifAbsent ? ["if-none-match": "*"] : [:], body: data), key: key)
        return BlobInfo(key: key, size: Int64(data.count), modified: Int64(Date().timeIntervalSince1970 * 1000))
    }

    public func get(_ key: String, range: ClosedRange<Int64>?) throws -> [UInt8] {
        let headers = range.map { ["range": "bytes=\($0.lowerBound)-\($0.upperBound)"] } ?? [:]
        let answer = try checked(try send("GET", key: key, headers: headers), key: key)
        // 206, or 200 with a Content-Range (rclone): the range. 200 without one: a store that
        // ignores ranges sent the whole object, and the range is cut here.
        if let range, answer.status == 200, answer.headers["content-range"] == nil {
            let bytes = Array(answer.body)
            let lower = Int(min(range.lowerBound, Int64(bytes.count)))
            return Array(bytes[lower..<Int(min(range.upperBound + 1, Int64(bytes.count)))])
        }
        return Array(answer.body)
    }

    public func download(_ key: String, to path: String) throws -> BlobInfo {
        let answer = try checked(try send("GET", key: key), key: key)
        let staged = path + ".\(UUID().uuidString).partial"
        do {
            try answer.body.write(to: URL(fileURLWithPath: staged))
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: staged, toPath: path)
        } catch {
            try? FileManager.default.removeItem(atPath: staged)
            throw BlobStoreError.failed("cannot write \(path): \(error)")
        }
        return BlobInfo(key: key, size: Int64(answer.body.count), modified: Self.milliseconds(answer.headers["last-modified"]))
    }

    public func info(_ key: String) throws -> BlobInfo? {
        let answer = try send("HEAD", key: key)
        if answer.status == 404 { return nil }
        _ = try checked(answer, key: key)
        return BlobInfo(
            key: key, size: Int64(answer.headers["content-length"] ?? "") ?? 0, modified: Self.milliseconds(answer.headers["last-modified"]))
    }

    public func delete(_ key: String) throws {
        let answer = try send("DELETE", key: key)
        if answer.status != 404 { _ = try checked(answer, key: key) }
    }

    /// A copy of the object onto itself with its metadata replaced: S3's one way to move an
    /// object's Last-Modified on without sending its bytes again.
    public func touch(_ key: String, modified: Int64) throws {
        let headers = ["x-amz-copy-source": "/\(bucket)/\(key)", "x-amz-metadata-directive": "REPLACE"]
        _ = try checked(try send("PUT", key: key, headers: headers), key: key)
    }

    public func localPath(_ key: String) throws -> String? { nil }

    public func list(prefix: String) throws -> [BlobInfo] {
        var found: [BlobInfo] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let page = S3XML.listing(String(decoding: try checked(try send("GET", key: nil, query: query), key: nil).body, as: UTF8.self))
            found += page.objects
            token = page.next
        } while token != nil
        return found.sorted { $0.key < $1.key }
    }

    /// An HTTP date (`Tue, 24 Nov 2026 06:00:00 GMT`) as epoch ms; 0 when absent.
    static func milliseconds(_ text: String?) -> Int64 {
        guard let text else { return 0 }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970 * 1000) } ?? 0
    }
}
