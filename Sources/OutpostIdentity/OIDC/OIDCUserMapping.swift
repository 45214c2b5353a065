import OutpostStorage
import OutpostWire

/// Who a verified ID token signs in as: a valid Outpost user name and a role, from the claims
/// an operator names.
public struct OIDCUserMapping: Sendable, Equatable {
    /// The claim the name is read from first.
    public var usernameClaim: String
    /// The claim holding the person's role(s); nil: everyone gets `defaultRole`.
    public var roleClaim: String?
    public var defaultRole: UserRole

    /// ArcGIS's built-in role ids (docs/portal.md) and Outpost's own names, lower-cased.
    static let roleNames: [String: UserRole] = [
        "viewer": .viewer, "editor": .editor, "admin": .admin, "org_user": .viewer, "org_publisher": .editor, "org_admin": .admin,
    ]

    public init(usernameClaim: String = "preferred_username", roleClaim: String? = nil, defaultRole: UserRole = .viewer) {
        self.usernameClaim = usernameClaim
        self.roleClaim = roleClaim
        self.defaultRole = defaultRole
    }

    /// The name from `usernameClaim`, else the part of `email` before its last '@' (unless
    /// `email_verified` is false), else `sub`; made a valid user name (`userName(from:)`). The
    /// role: the highest of `viewer`, `editor`, `admin` (or ArcGIS's `org_user`,
    /// `org_publisher`, `org_admin`) that `roleClaim` holds, as a string or an array of
    /// strings, case-insensitive; `defaultRole` when it holds none.
    public func user(from claims: IDTokenClaims) throws(ArcGISError) -> ServerUser {
        let candidates = [claims.string(usernameClaim), emailLocalPart(claims), claims.subject]
        guard let source = candidates.lazy.compactMap({ $0 }).first(where: { !$0.isEmpty }) else {
            throw OAuthRefusal.invalidGrant("Invalid ID token: no claim to take a user name from")
        }
        return ServerUser(name: Self.userName(from: source), role: role(claims) ?? defaultRole)
    }

    /// `text` as `Credentials.check` takes a name: ASCII letters, digits, '_', '.', '-' (each
    /// other character becomes '_'), at most 64 characters, never 32 hex digits (an id's form:
    /// '_' is appended), nor the server's own name (`outpost`: '_' appended), nor only dots (a path's `.` and `..`: they become '_').
    public static func userName(from text: String) -> String {
        var name = String(text.prefix(64).map { $0.isASCII && ($0.isLetter || $0.isNumber || "_.-".contains($0)) ? $0 : "_" })
        if name.isEmpty || name.allSatisfy({ $0 == "." }) { name = String(repeating: "_", count: max(1, name.count)) }
        if PortalNames.isValidId(name.lowercased()) || name.lowercased() == PortalNames.serverOwner { name += "_" }
        return name
    }

    func emailLocalPart(_ claims: IDTokenClaims) -> String? {
        guard let email = claims.string("email"), claims.claims["email_verified"]?.boolValue != false,
            let at = email.lastIndex(of: "@")
        else { return nil }
        return String(email[..<at])
    }

    /// The highest role the claim names; nil when it names none (or is absent). A dotted name
    /// (`realm_access.roles`, Keycloak's) that is no claim of its own is a path into objects.
    func role(_ claims: IDTokenClaims) -> UserRole? {
        guard let roleClaim, let value = Self.claim(roleClaim, in: claims.claims) else { return nil }
        let names: [String]
        switch value {
        case .string(let one): names = [one]
        case .array(let many): names = many.compactMap(\.stringValue)
        default: return nil
        }
        return names.compactMap { Self.roleNames[$0.lowercased()] }.max()
    }

    static func claim(_ name: String, in claims: JSONObject) -> JSONValue? {
        if let value = claims[name] { return value }
        let path = name.split(separator: ".", omittingEmptySubsequences: false)
        guard path.count > 1 else { return nil }
        var value = JSONValue.object(claims)
        for step in path {
            guard let next = value[String(step)] else { return nil }
            value = next
        }
        return value
    }
}
