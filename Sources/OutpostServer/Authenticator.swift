import HTTPTypes
import Hummingbird
import OutpostStore
import OutpostWire

/// Token security (`serve --require-auth`): who is asking, and may they. Tokens come from
/// `…/arcgis/tokens/generateToken` and travel as `token=` or `X-Esri-Authorization: Bearer`
/// (or `Authorization: Bearer`); a missing token is ArcGIS's 499, a bad or expired one 498,
/// a role too low 403. Without `--require-auth` everyone is an anonymous admin.
struct Authenticator: Sendable {
    let store: FeatureStore
    let required: Bool
    /// Minutes a token lives when the request does not say (and the most it may ask).
    let defaultMinutes: Int
    let maximumMinutes: Int

    static let tokenRequired = ArcGISError(kind: .invalidParameter, code: 499, message: "Token Required", details: [])
    static let invalidToken = ArcGISError(kind: .invalidParameter, code: 498, message: "Invalid Token", details: [])
    static let forbidden = ArcGISError(kind: .invalidParameter, code: 403,
                                       message: "You do not have permissions to access this resource or perform this operation.", details: [])

    /// The caller, or nil when anonymous is fine (security off).
    func user(_ request: Request, _ parameters: RequestParameters) throws -> ServerUser? {
        let header = request.headers[HTTPField.Name("X-Esri-Authorization")!] ?? request.headers[.authorization]
        let bearer = header.flatMap { $0.lowercased().hasPrefix("bearer ") ? String($0.dropFirst(7)).trimmingCharacters(in: .whitespaces) : nil }
        guard let token = parameters.string("token").flatMap({ $0.isEmpty ? nil : $0 }) ?? bearer else {
            if required { throw Self.tokenRequired }
            return nil
        }
        switch try store.check(token: token) {
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

    /// `generateToken`: `username`, `password`, `expiration` (minutes).
    func generateToken(_ p: RequestParameters) throws -> Response {
        guard let name = p.string("username"), let password = p.string("password") else {
            throw ArcGISError(kind: .invalidParameter, code: 400, message: "Unable to generate token.", details: ["'username' and 'password' are required."])
        }
        guard let user = try store.verify(user: name, password: password) else {
            throw ArcGISError(kind: .invalidParameter, code: 400, message: "Unable to generate token.", details: ["Invalid username or password."])
        }
        var minutes = defaultMinutes
        if let text = p.string("expiration") {
            guard let value = Int(text), value > 0 else { throw ArcGISError.invalidParameter("expiration", "minutes, a positive integer") }
            minutes = min(value, maximumMinutes)
        }
        let issued = try store.issueToken(for: user, minutes: minutes)
        return RESTResponse.json(["token": .string(issued.token), "expires": .int(issued.expires), "ssl": false], parameters: p)
    }
}

extension OutpostRequestContext {
    /// Whether the caller may touch a replica: its owner, an admin, or anyone when security is off.
    func mayManage(replicaOwner owner: String) -> Bool {
        guard let user else { return true }
        return user.role == .admin || owner.isEmpty || owner.caseInsensitiveCompare(user.name) == .orderedSame
    }
}
