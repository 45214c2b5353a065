import Hummingbird
import OutpostStorage
import OutpostWire

/// Authentication, then the form: decides who is asking from the head (a token in the query
/// or a bearer header) before any body byte is read, then receives the form within the
/// route's limits (`receiveForm`), passing `BodyAdmission` the `token` form field when the
/// head had none. The caller and the form go inwards in the context; file parts a handler did
/// not take over are removed after it.
struct FormAdmissionMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext

    /// The least role the routes need with token security on; nil: open to anyone, and then
    /// only small forms are read (nobody unauthenticated gets more read).
    let role: UserRole?
    /// On a route open to anyone, whether a token still names the caller (the portal).
    var identifies = false
    let authenticator: Authenticator
    let limits: UploadLimits
    let temporaryDirectory: String

    static let openRouteLimits = UploadLimits(maxBodyBytes: BodyAdmission.preambleBytes, maxFieldBytes: BodyAdmission.preambleBytes)

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let query = RequestParameters(FormURLEncoding.decode(request.uri.query ?? ""))
        var admission = try await authenticator.admission(request, query: query, role: role, identifies: identifies)
        let form = try await request.receiveForm(
            query: query, limits: role == nil ? Self.openRouteLimits : limits,
            temporaryDirectory: temporaryDirectory, admission: &admission)
        defer { form.discardFiles() }
        context.exchange.parameters = form.parameters
        context.exchange.bodyRead = true
        context.record.note(replicaId: form.parameters.string("replicaID"))
        context.record.note(form: form, user: admission.user?.name)
        var context = context
        context.user = admission.user
        context.form = form
        return try await next(request, context)
    }
}
