import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostWire

/// Token security (`serve --require-auth`): who is asking, and may they. Tokens come from
/// `…/arcgis/tokens/generateToken` and travel as `token=` or `X-Esri-Authorization: Bearer`
/// (or `Authorization: Bearer`); a missing token is ArcGIS's 499, a bad or expired one 498,
/// a role too low 403. Without `--require-auth` everyone is an anonymous admin.
struct Authenticator: Sendable {
    let users: any UserDirectory
    let clock: any WallClock
    let required: Bool
    /// Minutes a token lives when the request does not say (and the most it may ask).
    let defaultMinutes: Int
    let maximumMinutes: Int
    let throttle = NIOLockedValueBox(LoginThrottle())

    init(store: some ServerRecords, required: Bool, defaultMinutes: Int, maximumMinutes: Int) {
        users = store.users
        clock = store.clock
        self.required = required
        self.defaultMinutes = defaultMinutes
        self.maximumMinutes = maximumMinutes
    }

    static let tokenRequired = ArcGISError(kind: .tokenRequired, message: "Token Required", details: [])
    static let invalidToken = ArcGISError(kind: .invalidToken, message: "Invalid Token", details: [])
    static let forbidden = ArcGISError.forbidden

    /// The token a request carries before its body: `token=` in the query string, or a
    /// bearer header.
    static func token(of request: Request, query: RequestParameters) -> String? {
        if let token = query.string("token"), !token.isEmpty { return token }
        let header = request.headers[HTTPField.Name("X-Esri-Authorization")!] ?? request.headers[.authorization]
        return header.flatMap { $0.lowercased().hasPrefix("bearer ") ? String($0.dropFirst(7)).trimmingCharacters(in: .whitespaces) : nil }
    }

    /// Decides whether a request's body may be read, and who is asking, for a route needing
    /// `role` (nil: open to anyone; then a token, when `identifies`, still names the caller,
    /// as the portal's item sharing needs, and a bad one is refused).
    func admission(_ request: Request, query: RequestParameters, role: UserRole?, identifies: Bool = false) async throws -> BodyAdmission {
        guard let role else {
            guard identifies else { return try await BodyAdmission(headerToken: nil, required: false) { _ in nil } }
            return try await BodyAdmission(headerToken: Self.token(of: request, query: query), required: false) { token in
                guard case .valid(let user) = try await check(token: token) else { throw Self.invalidToken }
                return user
            }
        }
        return try await BodyAdmission(headerToken: Self.token(of: request, query: query), required: required) { token in
            let user = try await self.user(token: token)
            try self.authorize(user, role)
            return user
        }
    }

    /// What a token is worth: a read of the user directory, on the blocking pool.
    func check(token: String) async throws -> TokenCheck {
        let (users, longest) = (users, TokenLifetimes(userTokenMinutes: maximumMinutes))
        return try await StoreCall.run { try users.check(token: token, longest: longest) }
    }

    /// The caller a token names, or nil when anonymous is fine (security off).
    func user(token: String) async throws -> ServerUser? {
        switch try await check(token: token) {
        case .valid(let user): return user
        case .expired, .unknown:
            if required { throw Self.invalidToken }
            return nil
        }
    }

    /// Checks the caller may use an operation needing `role`.
    func authorize(_ user: ServerUser?, _ role: UserRole) throws {
        guard required else { return }
        guard let user else { throw Self.tokenRequired }
        if user.role < role { throw Self.forbidden }
    }

    /// `generateToken`: `username`, `password`, `expiration` (minutes); throttled per user
    /// name and address (`LoginThrottle`). Without them, `token` and `serverUrl` ask for a
    /// server token (`serverToken`) of `server`, this server as the request reached it;
    /// `scheme` is the one clients reach it by.
    func generateToken(_ p: RequestParameters, address: String, server: ServerAddress?, scheme: String) async throws -> Response {
        // Empty counts as absent: the Maps SDK for JavaScript may send them empty with a token.
        if p.string("username") == nil, p.string("password") == nil, let token = p.string("token"), let serverURL = p.string("serverUrl") {
            return try await StoreCall.run { [self] in try serverToken(p, token: token, serverURL: serverURL, this: server, scheme: scheme) }
        }
        guard let name = p.string("username"), let password = p.string("password") else {
            throw ArcGISError(kind: .invalidParameter, message: "Unable to generate token.", details: ["'username' and 'password' are required."])
        }
        let user = try await signIn(name: name, password: password, address: address)
        let users = self.users
        var minutes = defaultMinutes
        if let text = p.string("expiration") {
            guard let value = Int(text), value > 0 else { throw ArcGISError.invalidParameter("expiration", "minutes, a positive integer") }
            minutes = min(value, maximumMinutes)
        }
        let issued = try await StoreCall.run { [minutes] in try users.issueToken(for: user, minutes: minutes) }
        return Self.tokenAnswer(token: issued.token, expires: issued.expires, scheme: scheme, parameters: p)
    }
}

extension OutpostRequestContext {
    /// Whether the caller may see or touch a replica, job or result file: its owner, an admin,
    /// or anyone when security is off. One made without a user (owner '': before token
    /// security was turned on) belongs to the administrators.
    func mayManage(replicaOwner owner: String) -> Bool { caller.mayManage(owner: owner) }

    /// The caller, as the use cases take it.
    var caller: Caller { Caller(user: user) }

    /// Whose share of the job queue a job counts against: the user, or the address without one.
    var jobCaller: String { user.map { "user:\($0.name.lowercased())" } ?? "address:\(remoteAddress)" }
}
