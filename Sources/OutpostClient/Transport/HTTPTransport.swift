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
}

public enum TransportError: Error, Sendable, Equatable {
    /// The server could not be reached, or the connection broke: the request may be retried.
    case unreachable(String)
}

/// `URLSession`, ephemeral, no cache, 120 s per request.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// `allowsUntrustedCertificates` trusts any certificate (self-signed test servers only).
    /// Apple platforms only: on Linux, FoundationNetworking offers no server-trust hook and
    /// certificates are checked as usual.
    public init(allowsUntrustedCertificates: Bool = false) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
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
        #if canImport(Darwin)
            if let trust = challenge.protectionSpace.serverTrust {
                completionHandler(.useCredential, URLCredential(trust: trust))
                return
            }
        #endif
        completionHandler(.performDefaultHandling, nil)
    }
}
