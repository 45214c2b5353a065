import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// The portal's users: `community/self`, `community/users/<u>` and `portals/self.user`, all
/// built by `PortalUserJSON`; and the user a path names, by name or by id (docs/portal.md,
/// "Users").
extension PortalController {
    /// `user`'s object as `caller` is answered it: the full profile for themselves and
    /// administrators, the public profile for anyone else.
    func userJSON(_ user: ServerUser, for caller: ServerUser?) throws -> JSONValue {
        let created = try store.users.created(user: user.name)
        let own = caller.map { $0.role == .admin || $0.name.caseInsensitiveCompare(user.name) == .orderedSame } ?? false
        return PortalUserJSON(user: user, organization: Self.organizationId, created: created, fullProfile: own).json
    }

    /// `community/self`: the user the token names; anonymous callers are refused.
    func communitySelf(_ c: OutpostRequestContext) throws -> Response {
        guard let user = c.user else { throw ArcGISError.forbidden }
        return RESTResponse.json(try userJSON(user, for: user), parameters: c.form.parameters)
    }

    /// `community/users/<name or id>`: any user, to any signed-in caller (or anyone while
    /// token security is off).
    /// The server's own account (`outpost`, the owner of the service items) answers a public
    /// profile, as `esri` does on ArcGIS Online: clients look up an item's owner (the ArcGIS
    /// API for Python's `Item` does on every item it loads). Nobody signs in as it.
    func communityUser(_ c: OutpostRequestContext) throws -> Response {
        let name = try pathUser(c)
        guard caller(c) != .anonymous else { throw UserFailure.notFound(name) }
        if let user = try store.users.user(named: name) {
            return RESTResponse.json(try userJSON(user, for: c.user), parameters: c.form.parameters)
        }
        guard name.caseInsensitiveCompare(ServiceItems.owner) == .orderedSame else { throw UserFailure.notFound(name) }
        let server = PortalUserJSON(user: ServerUser(name: ServiceItems.owner, role: .viewer), organization: Self.organizationId)
        return RESTResponse.json(server.json, parameters: c.form.parameters)
    }

    /// The user name the path's `:user` segment names: a user's id (`PortalUserJSON.id(of:)`;
    /// the Maps SDK for JavaScript builds `content/users/<id>` and `community/users/<id>` from
    /// `PortalUser.id`), else a user's name. An id wins: it is derived from a user's name, so a
    /// name that looks like one (refused since, but a user added earlier may have one) cannot
    /// capture another user's paths. Anything else (the service items' owner, a user that does
    /// not exist) is left as given.
    func pathUser(_ c: OutpostRequestContext) throws -> String {
        let segment = c.parameters.get("user") ?? ""
        let id = segment.lowercased()
        guard PortalNames.isValidId(id) else { return segment }
        return try store.users.users().first { PortalUserJSON.id(of: $0.name) == id }?.name ?? segment
    }
}
