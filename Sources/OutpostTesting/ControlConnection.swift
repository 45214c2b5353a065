import Foundation
import OutpostClient
import OutpostWire
import Synchronization

/// Calls the control API (`/_outpost/…`) over HTTP; under token security as the admin the
/// server was started with, signing in again when a moved clock has expired the token (498).
final class ControlConnection: Sendable {
    let root: URL
    private let admin: (name: String, password: String)?
    private let token = Mutex<String?>(nil)

    init(root: URL, admin: (String, String)?) {
        self.root = root
        self.admin = admin.map { (name: $0.0, password: $0.1) }
    }

    func get(_ path: String, _ query: [(String, String)] = []) async throws -> JSONValue {
        try await signedIn { connection in try await connection.getJSON(connection.url(path), query) }
    }

    func post(_ path: String, _ fields: [(String, String)] = []) async throws -> JSONValue {
        try await signedIn { connection in try await connection.postForm(connection.url(path), fields) }
    }

    private func signedIn(_ call: (ServiceConnection) async throws -> JSONValue) async throws -> JSONValue {
        var connection = ServiceConnection(serviceURL: root, retryWindow: .seconds(5))
        guard admin != nil else { return try await call(connection) }
        connection.token = try await currentToken(renew: false)
        do { return try await call(connection) } catch ClientError.server(let code, _, _) where [498, 499].contains(code) {
            connection.token = try await currentToken(renew: true)
            return try await call(connection)
        }
    }

    private func currentToken(renew: Bool) async throws -> String? {
        if !renew, let token = token.withLock({ $0 }) { return token }
        guard let admin else { return nil }
        let arcgis = root.deletingLastPathComponent().appendingPathComponent("arcgis/tokens")
        let tokens = ServiceConnection(serviceURL: arcgis, retryWindow: .seconds(5))
        let answer = try await tokens.postForm(
            tokens.url("generateToken"), [("username", admin.name), ("password", admin.password), ("client", "requestip"), ("expiration", "1440")])
        guard let fresh = answer["token"]?.stringValue else { throw ClientError.invalidResponse("generateToken answered no token") }
        token.withLock { $0 = fresh }
        return fresh
    }
}
