import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransport {
    /// A ranged download that keeps what arrived when the connection breaks mid-answer
    /// (`TransportError.cut`): `URLSession.data(for:)` throws those bytes away, so a download
    /// cut at 60 % would start its range again from the first byte.
    public func rangedData(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let collector = RangedAnswerCollector(trustsAnyCertificate: allowsUntrustedCertificates)
        let session = URLSession(configuration: Self.configuration, delegate: collector, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                collector.start(task, continuation)
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Collects one data task's answer, as far as it came.
final class RangedAnswerCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var received = Data()
    private var response: HTTPURLResponse?
    private var continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>?
    private let trustsAnyCertificate: Bool

    init(trustsAnyCertificate: Bool) { self.trustsAnyCertificate = trustsAnyCertificate }

    func start(_ task: URLSessionDataTask, _ continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) {
        lock.withLock { self.continuation = continuation }
        task.resume()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        lock.withLock { self.response = response as? HTTPURLResponse }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { received.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (data, response, continuation) = lock.withLock {
            defer { self.continuation = nil }
            return (received, self.response, self.continuation)
        }
        guard let continuation else { return }
        switch (error, response) {
        case (nil, let response?):
            continuation.resume(returning: (data, response))
        case (nil, nil):
            continuation.resume(throwing: ClientError.invalidResponse("not HTTP"))
        case (let error as URLError, _) where error.code == .cancelled:
            continuation.resume(throwing: CancellationError())
        case (_, _?) where data.isEmpty:
            // The headers came, then the connection broke (FoundationNetworking's "transfer
            // closed" is not a URLError code the transient list names): worth sending again.
            continuation.resume(throwing: TransportError.unreachable("connection lost after the answer's headers"))
        case (_, let response?):
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name] = value }
            }
            continuation.resume(throwing: TransportError.cut(received: data, status: response.statusCode, headers: headers))
        case (let error as URLError, _) where URLSessionTransport.isTransient(error):
            continuation.resume(throwing: TransportError.unreachable(error.localizedDescription))
        case (let error?, _):
            continuation.resume(throwing: error)
        }
    }

    func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        if trustsAnyCertificate {
            trustAnyCertificate(challenge, completionHandler: completionHandler)
        } else {
            completionHandler(.performDefaultHandling, nil)
        }
    }
}
