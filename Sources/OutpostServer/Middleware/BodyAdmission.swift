import Hummingbird
import OutpostStorage
import OutpostWire

/// Whether a request's body may be read, decided before its bytes are (token security).
///
/// A token in the headers or the query string decides before the first body byte. A client
/// that sends its token as a form field (ArcGIS's JavaScript API does) is admitted when that
/// field arrives, if it comes within the first `preambleBytes` of the body and before any
/// file part: nothing larger, and no file, is read for a caller nobody has authenticated.
struct BodyAdmission {
    /// How much of a body is read looking for a `token` field.
    static let preambleBytes = 64 * 1024

    enum State {
        /// Token security is off, or the caller was authenticated: read on.
        case admitted(ServerUser?)
        /// No token yet: read no more than the preamble, and no file part.
        case pending
    }

    private(set) var state: State
    /// Asks the user directory, on the blocking pool (`StoreCall`): a token check is a database read.
    private let authenticate: (_ token: String) async throws -> ServerUser?
    /// Without token security a token is optional: one in the body still names the caller.
    private let identifiesFromBody: Bool

    /// - Parameters:
    ///   - headerToken: the token of the `Authorization`/`X-Esri-Authorization` header or the query string.
    ///   - required: token security is on for this route.
    ///   - authenticate: checks a token and the caller's role; throws 498 or 403.
    init(headerToken: String?, required: Bool, authenticate: @escaping (_ token: String) async throws -> ServerUser?) async throws {
        self.authenticate = authenticate
        identifiesFromBody = !required && headerToken == nil
        if let headerToken {
            state = .admitted(try await authenticate(headerToken))
        } else {
            state = required ? .pending : .admitted(nil)
        }
    }

    var isAdmitted: Bool {
        if case .admitted = state { return true }
        return false
    }

    var user: ServerUser? {
        if case .admitted(let user) = state { return user }
        return nil
    }

    /// A form field has been read: a `token` decides.
    mutating func field(_ name: String, _ value: String) async throws {
        guard name.lowercased() == "token", !value.isEmpty else { return }
        switch state {
        case .pending:
            state = .admitted(try await authenticate(value))
        case .admitted(nil) where identifiesFromBody:
            state = .admitted(try await authenticate(value))
        case .admitted:
            break
        }
    }

    /// `received` body bytes have been read, and a file part may begin: still pending past
    /// the preamble, or at a file, is a request without a token.
    func check(received: Int, fileBegins: Bool = false) throws {
        guard case .pending = state else { return }
        if fileBegins || received > Self.preambleBytes { throw Authenticator.tokenRequired }
    }

    /// The body has been read to its end: a caller still unknown had no token.
    func finish() throws {
        guard case .admitted = state else { throw Authenticator.tokenRequired }
    }
}
