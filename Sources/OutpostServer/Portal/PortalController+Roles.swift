import Hummingbird
import OutpostService
import OutpostWire

/// `portals/self/roles` (also `portals/<id>/roles` with the portal's own id): the
/// organisation's custom roles, paged as ArcGIS pages them (docs/portal.md, "Roles").
///
/// ArcGIS lists only custom roles here; the built-in `org_admin`, `org_publisher` and
/// `org_user` never appear. Outpost's three roles are exactly those built-in ones (a user's
/// `roleId` names them), so the list is empty. The ArcGIS API for Python 2.4.4 asks for it
/// when it builds a `User` with a `roleId` (`User._get_role` → `RoleManager.get_role`), finds
/// nothing and keeps the `roleId` as the role, as against ArcGIS.
extension PortalController {
    /// The custom roles: none (see above).
    static var customRoles: [JSONValue] { [] }

    /// The roles list, to any signed-in member (ArcGIS refuses anonymous callers).
    func roles(_ c: OutpostRequestContext) throws -> Response {
        let portal = c.parameters.get("portal") ?? ""
        guard portal.lowercased() == "self" || portal == Self.organizationId else {
            throw ArcGISError(kind: .notFound, message: "Portal not found.", details: ["Outpost's portal is 'self' or '\(Self.organizationId)'."])
        }
        guard c.user != nil else { throw ArcGISError.forbidden }
        let roles = Self.customRoles
        let page = try Paging(c.form.parameters, total: roles.count)
        return RESTResponse.json(page.answer(["roles": .array(Array(roles[page.range]))]), parameters: c.form.parameters)
    }
}
