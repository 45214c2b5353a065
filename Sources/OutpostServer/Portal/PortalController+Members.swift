import Foundation
import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// The organisation's members as ArcGIS's portal answers them (docs/portal.md, "Members"):
/// `portals/self/users` lists them to its members; an administrator adds them
/// (`portals/self/invite` with built-in accounts and passwords: Outpost sends no e-mail), changes
/// their role (`portals/self/updateuserrole`) and removes them (`community/users/<name>/delete`).
/// The organisation always keeps an administrator, and nobody removes themselves.
extension PortalController {
    func addMemberReadRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes.read("portals/:portal/users", store: { request, c in try members(c) })
    }

    func addMemberAdminRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes.change("portals/:portal/invite", store: { _, c in try invite(c) })
        routes.change("portals/:portal/updateuserrole", store: { _, c in try updateRole(c) })
        routes.change("community/users/:user/delete", store: { _, c in try deleteMember(c) })
    }

    /// At most this many invitations in one request.
    static var maximumInvitations: Int { 100 }

    private func members(_ c: OutpostRequestContext) throws -> Response {
        guard caller(c) != .anonymous else { throw ArcGISError.forbidden }
        let users = try store.users.users()
        let page = try Paging(c.form.parameters, total: users.count)
        let listed = try users[page.range].map { try userJSON($0, for: c.user) }
        return RESTResponse.json(page.answer(["users": .array(listed)]), parameters: c.form.parameters)
    }

    /// The role ArcGIS names (`org_admin`, `org_publisher`, `org_user`, or Outpost's own names).
    static func role(named name: String?) -> UserRole? {
        switch name?.lowercased() {
        case "org_admin", "admin", "account_admin": .admin
        case "org_publisher", "editor", "publisher", "account_publisher": .editor
        case "org_user", "viewer", "user", "account_user": .viewer
        default: nil
        }
    }

    private func invite(_ c: OutpostRequestContext) throws -> Response {
        guard let list = try c.form.parameters.json("invitationList") else { throw ArcGISError.missingParameter("invitationList") }
        guard let invitations = list["invitations"]?.arrayValue else {
            throw ArcGISError.invalidParameter("invitationList", "an object with an `invitations` array")
        }
        guard invitations.count <= Self.maximumInvitations else {
            throw ArcGISError.invalidParameter("invitationList", "at most \(Self.maximumInvitations) invitations")
        }
        var notInvited: [JSONValue] = []
        for invitation in invitations {
            let name = invitation["username"]?.stringValue ?? ""
            guard let password = invitation["password"]?.stringValue, let role = Self.role(named: invitation["role"]?.stringValue) else {
                notInvited.append(.string(name))
                continue
            }
            do {
                try store.users.addUser(name, role: role, password: password)
            } catch {
                notInvited.append(.string(name))
            }
        }
        return RESTResponse.json(["success": true, "notInvited": .array(notInvited)], parameters: c.form.parameters)
    }

    private func updateRole(_ c: OutpostRequestContext) throws -> Response {
        let p = c.form.parameters
        guard let name = p.string("user") else { throw ArcGISError.missingParameter("user") }
        guard let role = Self.role(named: p.string("role")) else {
            throw ArcGISError.invalidParameter("role", "org_user, org_publisher or org_admin")
        }
        guard let user = try store.users.user(named: name) else { throw UserFailure.notFound(name) }
        if user.role == .admin, role != .admin { try keepsAnAdministrator(without: user.name) }
        try store.users.setRole(role, of: user.name)
        return RESTResponse.json(["success": true, "username": .string(user.name)], parameters: p)
    }

    private func deleteMember(_ c: OutpostRequestContext) throws -> Response {
        let name = try pathUser(c)
        guard let user = try store.users.user(named: name) else { throw UserFailure.notFound(name) }
        if let me = c.user, me.name.caseInsensitiveCompare(user.name) == .orderedSame {
            throw ArcGISError(kind: .invalidParameter, message: "Unable to delete user.", details: ["Nobody removes themselves."])
        }
        if user.role == .admin { try keepsAnAdministrator(without: user.name) }
        if try store.portal.items().contains(where: { $0.owner.caseInsensitiveCompare(user.name) == .orderedSame }) {
            throw ArcGISError(
                kind: .invalidParameter, message: "Unable to delete user.",
                details: ["User '\(user.name)' owns items: delete them or give them to someone else first."])
        }
        try store.users.removeUser(user.name)
        return RESTResponse.json(["success": true, "username": .string(user.name)], parameters: c.form.parameters)
    }

    /// Refuses a change that would leave no administrator.
    private func keepsAnAdministrator(without name: String) throws {
        let others = try store.users.users().filter { $0.role == .admin && $0.name.caseInsensitiveCompare(name) != .orderedSame }
        guard !others.isEmpty else {
            throw ArcGISError(
                kind: .invalidParameter, message: "Unable to change the user.", details: ["The organization must keep an administrator."])
        }
    }
}
