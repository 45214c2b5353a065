import Foundation
import OutpostIdentity
import OutpostWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The organisation's OpenID provider as the portal talks to it: its discovery document and
/// signing keys (fetched, then kept 10 minutes; the keys refetched once when a token names
/// one not yet seen) and the code's exchange at its token endpoint. Every answer is bounded
/// (1 MiB, 10 s) and read as untrusted JSON; nothing here blocks a cooperative thread.
final class OIDCProvider: @unchecked Sendable {
    let settings: OIDCSettings
    static let cacheLifetime: Int64 = 10 * 60_000
    static let maximumBytes = 1 << 20
    static let timeout: TimeInterval = 10

    private let lock = NSLock()
    private var metadata: (value: OIDCProviderMetadata, fetched: Int64)?
    private var keys: (value: JSONWebKeySet, fetched: Int64, from: String)?

    init(settings: OIDCSettings) {
        self.settings = settings
    }

    /// The discovery document, checked against the configured issuer.
    func metadata(now: Int64) async throws -> OIDCProviderMetadata {
        if let cached = lock.withLock({ metadata }), now - cached.fetched < Self.cacheLifetime { return cached.value }
        let document = try await Self.json(from: settings.discoveryURL)
        let parsed = try OIDCProviderMetadata.parse(document, expectedIssuer: settings.issuer)
        lock.withLock { metadata = (parsed, now) }
        return parsed
    }

    /// The signing keys at `metadata.jwksURI`; `fresh` skips the cache.
    func keys(of metadata: OIDCProviderMetadata, now: Int64, fresh: Bool = false) async throws -> (JSONWebKeySet, cached: Bool) {
        if !fresh, let cached = lock.withLock({ keys }), cached.from == metadata.jwksURI, now - cached.fetched < Self.cacheLifetime {
            return (cached.value, true)
        }
        let set = try JSONWebKeySet.parse(try await Self.json(from: metadata.jwksURI))
        lock.withLock { keys = (set, now, metadata.jwksURI) }
        return (set, false)
    }

    /// The ID token's verified claims. Keys from the cache that do not verify it are fetched
    /// again once: the provider may have rotated them.
    func verify(_ idToken: String, metadata: OIDCProviderMetadata, nonce: String, now: Int64) async throws -> IDTokenClaims {
        let (set, cached) = try await keys(of: metadata, now: now)
        do {
            return try IDTokenVerifier.verify(idToken, keys: set, issuer: metadata.issuer, clientId: settings.clientId, nonce: nonce, now: now)
        } catch  where cached {
            let (fresh, _) = try await keys(of: metadata, now: now, fresh: true)
            return try IDTokenVerifier.verify(idToken, keys: fresh, issuer: metadata.issuer, clientId: settings.clientId, nonce: nonce, now: now)
        }
    }

    /// The code exchanged at the token endpoint (the secret as the provider takes it, with
    /// PKCE's verifier): the ID token it answers.
    func exchange(code: String, redirectURI: String, verifier: String, metadata: OIDCProviderMetadata) async throws -> String {
        guard let url = URL(string: metadata.tokenEndpoint) else { throw Self.failure("The provider's token endpoint is not a URL") }
        var request = URLRequest(url: url, timeoutInterval: Self.timeout)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let exchange = metadata.codeExchange(
            code: code, redirectURI: redirectURI, verifier: verifier, clientId: settings.clientId, clientSecret: settings.clientSecret)
        if let authorization = exchange.authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        request.httpBody = Data(exchange.form.utf8)
        let (status, body) = try await Self.fetch(request)
        let answer = try? JSONParser.parse(bytes: Array(body))
        guard (200..<300).contains(status) else {
            let said = answer?["error"]?.stringValue.map { ": \($0.prefix(80))" } ?? ""
            throw Self.failure("The provider refused the code (HTTP \(status)\(said))")
        }
        guard let idToken = answer?["id_token"]?.stringValue else { throw Self.failure("The provider's token answer has no id_token") }
        return idToken
    }

    /// A JSON document from `address` (GET).
    static func json(from address: String) async throws -> JSONValue {
        guard let url = URL(string: address) else { throw failure("Not a URL: \(address.prefix(200))") }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (status, body) = try await fetch(request)
        guard (200..<300).contains(status) else { throw failure("\(address.prefix(200)) answered HTTP \(status)") }
        guard let document = try? JSONParser.parse(bytes: Array(body)) else { throw failure("\(address.prefix(200)) did not answer JSON") }
        return document
    }

    /// One request, its body cut off (and refused) past `maximumBytes`.
    static func fetch(_ request: URLRequest) async throws -> (Int, Data) {
        let reader = BoundedReader(limit: maximumBytes)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try await withCheckedThrowingContinuation { continuation in
            reader.start(session.dataTask(with: request), continuation)
        }
    }

    static func failure(_ message: String) -> ArcGISError {
        OAuthRefusal.invalidRequest("Single sign-on failed: \(message)")
    }
}

/// A URLSession delegate that gathers one answer, up to a limit.
private final class BoundedReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let limit: Int
    private let lock = NSLock()
    private var body = Data()
    private var tooLarge = false
    private var continuation: CheckedContinuation<(Int, Data), any Error>?

    init(limit: Int) {
        self.limit = limit
    }

    func start(_ task: URLSessionDataTask, _ continuation: CheckedContinuation<(Int, Data), any Error>) {
        lock.withLock { self.continuation = continuation }
        task.resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = lock.withLock {
            body.append(data)
            tooLarge = tooLarge || body.count > limit
            return tooLarge
        }
        if over { dataTask.cancel() }
    }

    /// Redirects are not followed: a provider's endpoints are where its document says, and the
    /// token request (which carries the secret) goes nowhere else.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, body, tooLarge) = lock.withLock {
            let taken = self.continuation
            self.continuation = nil
            return (taken, self.body, self.tooLarge)
        }
        let address = task.originalRequest?.url.map { "\($0.host ?? "?")" } ?? "?"
        if tooLarge {
            continuation?.resume(throwing: OIDCProvider.failure("\(address) answered more than \(limit) bytes"))
        } else if let error {
            continuation?.resume(throwing: OIDCProvider.failure("\(address) could not be reached (\(error.localizedDescription.prefix(120)))"))
        } else {
            continuation?.resume(returning: ((task.response as? HTTPURLResponse)?.statusCode ?? 0, body))
        }
    }
}
