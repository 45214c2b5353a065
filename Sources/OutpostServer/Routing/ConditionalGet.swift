import HTTPTypes
import Hummingbird

/// A conditional GET of a download with an entity tag (RFC 9110 §13.1.2): when the client's
/// `If-None-Match` names the current tag (or is `*`), `304 Not Modified` with the tag and no
/// body, and no work; otherwise nil and the download goes on.
enum ConditionalGet {
    static func notModified(_ request: Request, eTag: String) -> Response? {
        guard let header = request.headers[.ifNoneMatch] else { return nil }
        let named = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        // A weak comparison, as for GET: `W/"x"` names `"x"`.
        guard named.contains(where: { $0 == "*" || $0 == eTag || $0 == "W/" + eTag }) else { return nil }
        return Response(status: .notModified, headers: [.eTag: eTag])
    }
}
