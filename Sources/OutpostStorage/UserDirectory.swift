import OutpostWire

/// Users, their passwords and their tokens.
///
/// Contract: names compare without case; passwords are stored only as salted slow hashes and
/// checked in the same time whether the user exists or not; tokens are stored only hashed,
/// and one is valid until its expiry by the backend's clock.
public protocol UserDirectory: UserDetails {
    /// Throws `UserFailure` for a bad name, a weak password or a taken name.
    func addUser(_ name: String, role: UserRole, password: String, rounds: Int) throws
    /// Removes the user and their tokens; `UserFailure.notFound` when there is none.
    func removeUser(_ name: String) throws
    /// Gives the user `role`, which their tokens carry from their next check;
    /// `UserFailure.notFound` when there is none.
    func setRole(_ role: UserRole, of name: String) throws
    func users() throws -> [ServerUser]
    var hasUsers: Bool { get throws }
    /// The user, when the password is theirs.
    func verify(user name: String, password: String) throws -> ServerUser?
    /// A new token for `user`, valid for `minutes`.
    func issueToken(for user: ServerUser, minutes: Int) throws -> (token: String, expires: Int64)
    func check(token: String) throws -> TokenCheck
    /// `check(token:)`, a token outliving what its kind can be issued with (`longest`) expired.
    func check(token: String, longest: TokenLifetimes) throws -> TokenCheck
}

extension UserDirectory {
    /// A directory that cannot tell a token's kind and life (a wrapper) checks as it checks.
    public func check(token: String, longest: TokenLifetimes) throws -> TokenCheck { try check(token: token) }

    /// The user of that name (names compare without case), if any.
    public func user(named name: String) throws -> ServerUser? {
        try users().first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    public func addUser(_ name: String, role: UserRole, password: String) throws {
        try addUser(name, role: role, password: password, rounds: passwordRounds)
    }
}

/// PBKDF2-HMAC-SHA256 iterations for new passwords (OWASP's 2023 figure); stored per user, so
/// raising it later keeps old hashes verifiable.
public let passwordRounds = 600_000

/// What a token is worth.
public enum TokenCheck: Sendable, Equatable {
    case valid(ServerUser)
    case expired
    case unknown
}

/// Why a user could not be added or removed.
public enum UserFailure: ArcGISErrorConvertible, Equatable, CustomStringConvertible {
    case invalidName(String)
    /// 32 hexadecimal digits: what a user's id looks like (docs/portal.md, "Users").
    case nameLikeAnId(String)
    /// The server's own name (`PortalNames.serverOwner`), which owns the services' items.
    case reservedName(String)
    case weakPassword
    case exists(String)
    case notFound(String)

    public var description: String {
        switch self {
        case .invalidName(let name): "'\(name)' is not a valid user name (letters, digits, '_', '.', '-', 1 to 64)"
        case .nameLikeAnId(let name):
            "'\(name)' cannot be a user name: user ids are 32 hexadecimal digits, and a name like one would be taken for a user's id"
        case .reservedName(let name): "'\(name)' cannot be a user name: it is the server's own, which owns the services' items"
        case .weakPassword: "passwords have at least 8 characters"
        case .exists(let name): "user \(name) exists already"
        case .notFound(let name): "no user \(name)"
        }
    }

    public var arcGISError: ArcGISError {
        if case .notFound = self { return ArcGISError(kind: .notFound, message: "User does not exist or is inaccessible.", details: [description]) }
        return ArcGISError(kind: .invalidParameter, message: "Unable to complete operation.", details: [description])
    }
}
