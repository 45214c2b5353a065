import Foundation
import HTTPTypes
import OutpostWire

@testable import OutpostServer

/// One concrete request for a row of `AuthorizationTable`, sent by each caller of the matrix.
struct MatrixCase: Sendable, CustomStringConvertible {
    typealias Subject = AuthorizationTable.Subject
    typealias Make = @Sendable (AuthorizationSession, Who) async throws -> Probe
    typealias Effect = @Sendable (AuthorizationSession, Probe) async throws -> Bool

    /// The row's path, as the table writes it.
    var row: String
    /// Which of the row's objects, when it has several (an item's access, a version's).
    var label = ""
    var subject: Subject?
    /// Another row whose right the request must also satisfy (an upload named by `uploadId`,
    /// a version named by `gdbVersion`).
    var alsoNeeds: String?
    /// Only an authorization refusal counts against an allowed caller (what this machine may
    /// lack, such as Leaflet, answers otherwise).
    var lenient = false
    var make: Make
    /// Whether the request's change happened: must be true once allowed, false once refused.
    var happened: Effect?
    /// For a list: whether the subject is in the answer.
    var shows: (@Sendable (AuthorizationSession, Answer) -> Bool)?

    var description: String { label.isEmpty ? row : "\(row) [\(label)]" }

    /// A GET of the path the session gives.
    static func read(
        _ row: String, _ label: String = "", subject: Subject? = nil, alsoNeeds: String? = nil, lenient: Bool = false,
        _ path: @escaping @Sendable (AuthorizationSession) -> String
    ) -> MatrixCase {
        MatrixCase(row: row, label: label, subject: subject, alsoNeeds: alsoNeeds, lenient: lenient, make: { session, _ in .get(path(session)) })
    }

    /// A GET of a list, and whether the subject is in it.
    static func list(
        _ row: String, _ label: String = "", subject: Subject, path: @escaping @Sendable (AuthorizationSession) -> String,
        shows: @escaping @Sendable (AuthorizationSession, Answer) -> Bool
    ) -> MatrixCase {
        MatrixCase(row: row, label: label, subject: subject, make: { session, _ in .get(path(session)) }, shows: shows)
    }

    /// A POST the session makes for the caller (fresh objects included), and its effect.
    static func post(
        _ row: String, _ label: String = "", subject: Subject? = nil, alsoNeeds: String? = nil, make: @escaping Make,
        happened: Effect? = nil
    ) -> MatrixCase {
        MatrixCase(row: row, label: label, subject: subject, alsoNeeds: alsoNeeds, make: make, happened: happened)
    }

    /// What `who` should get for a request at `path`: the row's refusal, then the other row's
    /// right; nil when allowed.
    func expected(_ table: AuthorizationTable, method: HTTPRequest.Method, who: Who, path: String) -> AuthorizationTable.Refusal? {
        guard let row = table.row(row) else { return nil }
        let subject = subject(for: who, row: row, path: path)
        if let refused = row.refusal(method, caller: who.user, subject: subject) { return refused }
        guard let also = alsoNeeds.flatMap({ table.row($0) }) else { return nil }
        return also.refusal(.post, caller: who.user, subject: subject)
    }

    /// The case's subject as `who` meets it: below a service, an API key's scope is the
    /// service's (whether the keys name the service the path is below).
    func subject(for who: Who, row: AuthorizationTable.Row, path: String) -> Subject? {
        guard who.user?.apiKey != nil, row.apiKeys == .services else { return subject }
        var subject = subject ?? Subject(owner: "outpost", access: "org")
        subject.inKeyScope = AuthorizationSession.keyReaches(path)
        return subject
    }
}

/// Whether a JSON list holds a member whose `key` is `value`.
func holds(_ list: JSONValue?, _ key: String, _ value: String) -> Bool {
    list?.arrayValue?.contains { $0[key]?.stringValue?.caseInsensitiveCompare(value) == .orderedSame } == true
}
