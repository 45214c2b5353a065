import Foundation
import Hummingbird
import OutpostStorage
import OutpostWire

/// A member's sign-ins (docs/identity.md, "Sessions"): the portal's refresh-token families
/// with a live token, each a browser or app that stays signed in, listed to the member and to
/// administrators, who may end one (its access tokens end with it). Outpost's own resource:
/// ArcGIS's portal answers no such list. Never to an API key.
extension PortalController {
    func addSessionRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes.read("community/users/:user/sessions", store: { _, c in try sessions(c) })
        routes.change("community/users/:user/sessions/:session/revoke", store: { _, c in try endSession(c) })
    }

    /// The path's user, if the caller is that user or an administrator (never as an API key).
    private func sessionOwner(_ c: OutpostRequestContext) throws -> String {
        let name = try pathUser(c)
        guard let user = c.user, user.apiKey == nil, user.role == .admin || user.name.caseInsensitiveCompare(name) == .orderedSame else {
            throw ArcGISError.forbidden
        }
        return name
    }

    private func sessions(_ c: OutpostRequestContext) throws -> Response {
        let listed = try store.oauth.sessions(user: try sessionOwner(c)).map { session -> JSONValue in
            [
                "id": .string(session.family), "client": .string(session.clientId), "started": .int(session.started),
                "renewed": .int(session.renewed), "expires": .int(session.expires),
            ]
        }
        return RESTResponse.json(["sessions": .array(listed)], parameters: c.form.parameters)
    }

    private func endSession(_ c: OutpostRequestContext) throws -> Response {
        let owner = try sessionOwner(c)
        let family = c.parameters.get("session") ?? ""
        guard try store.oauth.endSession(family: family, user: owner) else {
            throw ArcGISError(kind: .notFound, message: "Session not found.", details: ["\(owner) has no session '\(family)'."])
        }
        return RESTResponse.json(["success": true], parameters: c.form.parameters)
    }
}
