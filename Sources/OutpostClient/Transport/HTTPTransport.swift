import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What carries the client library's requests: `URLSessionTransport` by default, any
/// implementation in tests (a scripted server, a network that drops) or in an app with its
/// own networking. `ServiceConnection` adds the token, the retries and the ArcGIS errors.
public protocol HTTPTransport: Sendable {
    /// Sends one request. A failure worth retrying (no route, connection lost, timed out) is
    /// `TransportError.unreachable`; cancellation is `CancellationError`.
    func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse)
    /// Sends a ranged download (`Range:`); a connection broken mid-answer throws
    /// `TransportError.cut` with the bytes that arrived, so the next range starts after them.
    /// By default as `data(for:)` (what arrived is lost: the range is asked for again).
    func rangedData(for request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

extension HTTPTransport {
    public func rangedData(for request: URLRequest) async throws -> (Data, HTTPURLResponse) { try await data(for: request) }
}

public enum TransportError: Error, Sendable, Equatable {
    /// The server could not be reached, or the connection broke: the request may be retried.
    case unreachable(String)
    /// The connection broke mid-answer after `received` bytes of a `status` answer with these
    /// headers (`rangedData(for:)` only); worth retrying from the next byte.
    case cut(received: Data, status: Int, headers: [String: String])
}

/// `URLSession`, ephemeral, no cache, 120 s per request.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession
    let allowsUntrustedCertificates: Bool

    /// `allowsUntrustedCertificates` trusts any certificate (self-signed test servers only).
    /// Apple platforms only: on Linux, FoundationNetworking offers no server-trust hook and
    /// certificates are checked as usual.
    public init(allowsUntrustedCertificates: Bool = false) {
        self.allowsUntrustedCertificates = allowsUntrustedCertificates
        let configuration = Self.configuration
        session = URLSession(configuration: configuration, delegate: allowsUntrustedCertificates ? TrustingDelegate() : nil, delegateQueue: nil)
    }

    public func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw ClientError.invalidResponse("not HTTP") }
            return (data, http)
        } catch let error as URLError where Self.isTransient(error) {
            throw TransportError.unreachable(error.localizedDescription)
        } catch let error as URLError where error.code == .cancelled {
            throw CancellationError()
        }
    }

    static var configuration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    static func isTransient(_ error: URLError) -> Bool {
        [
            .networkConnectionLost, .notConnectedToInternet, .cannotConnectToHost, .timedOut, .cannotFindHost,
            .dnsLookupFailed, .resourceUnavailable, .badServerResponse,
        ].contains(error.code)
    }
}

/// Accepts any server certificate (opt-in, for self-signed test servers).
private final class TrustingDelegate: NSObject, URLSessionDelegate, Sendable {
    func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        trustAnyCertificate(challenge, completionHandler: completionHandler)
    }
}

/// Trusts the server's certificate whatever it is (Apple platforms; elsewhere the usual checks).
func trustAnyCertificate(
    _ challenge: URLAuthenticationChallenge, completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
) {
    #if canImport(Darwin)
        if let trust = challenge.protectionSpace.serverTrust {
            completionHandler(.useCredential, URLCredential(trust: trust))
            return
        }
    #endif
    completionHandler(.performDefaultHandling, nil)
}
