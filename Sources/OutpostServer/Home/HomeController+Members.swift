import Foundation
import Hummingbird
import OutpostWire

/// The organisation page's members: listed from `portals/self/users`, added through
/// `portals/self/invite` (a built-in account with a password), their role changed through
/// `portals/self/updateuserrole`, removed through `community/users/<name>/delete`.
extension HomeController {
    var memberActions: [String: Action] {
        ["addMember": { try await addMember($0) }, "changeRole": { try await changeRole($0) }, "removeMember": { try await removeMember($0) }]
    }

    static let backToOrganization = "<input type=\"hidden\" name=\"return\" value=\"organization.html\">"

    static let roles = [("org_user", "User (viewer)"), ("org_publisher", "Publisher (editor)"), ("org_admin", "Administrator")]

    /// The members section of `organization.html` (markup, escaped).
    func membersSection(_ home: HomeRequest) async throws -> String {
        let answer = try await home.get(HomeRequest.portal + "/portals/self/users", [("num", "100")])
        let total = answer["total"]?.int64Value ?? 0
        var out = "<section aria-labelledby=\"members\"><h2 id=\"members\">Members</h2>"
        out += "<p>Token security is <strong>\(home.session.securityOn ? "on" : "off")</strong>: "
        out += (home.session.securityOn ? "every request needs a member's token." : "anyone who reaches the server may use it.") + "</p>"
        out += "<p>\(total) member\(total == 1 ? "" : "s").</p>"
        out += "<div class=\"table-wrap\"><table id=\"member-table\"><caption>Members of the organization</caption><thead><tr>"
        out += "<th scope=\"col\">User name</th><th scope=\"col\">Full name</th><th scope=\"col\">Role</th><th scope=\"col\">Added</th>"
        out += "<th scope=\"col\">Actions</th></tr></thead><tbody>"
        for member in answer["users"]?.arrayValue ?? [] {
            let name = member["username"]?.stringValue ?? ""
            let role = member["role"]?.stringValue ?? ""
            out += "<tr><th scope=\"row\">\(HTMLText.escape(name))</th><td>\(HTMLText.escape(member["fullName"]?.stringValue ?? ""))</td>"
            out += "<td>\(HTMLText.escape(Self.roleName(role)))</td><td>\(HTMLText.date(milliseconds: member["created"]?.int64Value))</td><td>"
            out += roleForm(name: name, role: role, session: home.session)
            if name != home.session.user?.username { out += removeForm(name: name, session: home.session) }
            out += " <a href=\"/arcgis/home/user.html?user=\(HTMLText.query(name))\">Sign-ins</a></td></tr>"
        }
        out += "</tbody></table></div>" + addMemberForm(home.session)
        return out + "</section>"
    }

    private func roleForm(name: String, role: String, session: HomeSession) -> String {
        let id = "role-\(HTMLText.escape(name))"
        var out =
            "<form method=\"post\" action=\"/arcgis/home/actions/changeRole\" class=\"inline\">\(HTMLText.csrfField(session))\(Self.backToOrganization)"
        out +=
            "<input type=\"hidden\" name=\"user\" value=\"\(HTMLText.escape(name))\"><label class=\"inline\" for=\"\(id)\">Role of \(HTMLText.escape(name))</label> "
        out += "<select id=\"\(id)\" name=\"role\">"
        for (value, label) in Self.roles { out += "<option value=\"\(value)\"\(value == role ? " selected" : "")>\(label)</option>" }
        return out + "</select> <button type=\"submit\" class=\"secondary\">Change role</button></form> "
    }

    private func removeForm(name: String, session: HomeSession) -> String {
        var out =
            "<form method=\"post\" action=\"/arcgis/home/actions/removeMember\" class=\"inline\">\(HTMLText.csrfField(session))\(Self.backToOrganization)"
        out += "<input type=\"hidden\" name=\"user\" value=\"\(HTMLText.escape(name))\"><details class=\"inline\"><summary>Remove…</summary>"
        return out + "<button type=\"submit\" class=\"danger\">Remove '\(HTMLText.escape(name))'</button></details></form>"
    }

    private func addMemberForm(_ session: HomeSession) -> String {
        var out = "<h3 id=\"add-member\">Add a member</h3><form method=\"post\" action=\"/arcgis/home/actions/addMember\" id=\"member-form\">"
        out += HTMLText.csrfField(session) + Self.backToOrganization
        out +=
            "<label for=\"member-name\">User name</label><input id=\"member-name\" name=\"username\" required maxlength=\"64\" autocomplete=\"off\">"
        out += "<label for=\"member-password\">Password <span class=\"hint\">(at least 12 characters; tell it to them yourself)</span></label>"
        out += "<input id=\"member-password\" name=\"password\" type=\"password\" required minlength=\"12\" autocomplete=\"new-password\">"
        out += "<label for=\"member-role\">Role</label><select id=\"member-role\" name=\"role\">"
        for (value, label) in Self.roles { out += "<option value=\"\(value)\"\(value == "org_publisher" ? " selected" : "")>\(label)</option>" }
        return out + "</select><p><button type=\"submit\">Add member</button></p></form>"
    }

    func addMember(_ home: HomeRequest) async throws -> Response {
        let name = home.form.string("username") ?? ""
        let invitation: JSONValue = [
            "username": .string(name), "password": .string(home.form.string("password") ?? ""), "role": .string(home.form.string("role") ?? ""),
            "fullname": .string(home.form.string("fullname") ?? ""),
        ]
        let answer = try await home.post(
            HomeRequest.portal + "/portals/self/invite", [("invitationList", JSONValue.object(["invitations": [invitation]]).jsonText)])
        if answer["notInvited"]?.arrayValue?.isEmpty == false {
            throw HomeFailure(message: "'\(name)' was not added: the name is taken or not allowed, or the password is too weak.", code: 400)
        }
        return home.redirect(to: "organization.html", done: "'\(name)' added.")
    }

    func changeRole(_ home: HomeRequest) async throws -> Response {
        let name = home.form.string("user") ?? ""
        _ = try await home.post(HomeRequest.portal + "/portals/self/updateuserrole", [("user", name), ("role", home.form.string("role") ?? "")])
        return home.redirect(to: "organization.html", done: "The role of '\(name)' changed.")
    }

    func removeMember(_ home: HomeRequest) async throws -> Response {
        let name = home.form.string("user") ?? ""
        _ = try await home.post(HomeRequest.portal + "/community/users/\(HTMLText.query(name))/delete")
        return home.redirect(to: "organization.html", done: "'\(name)' removed.")
    }
}
