import Crypto
import OutpostStorage
import OutpostWire

/// A portal user as ArcGIS answers one: the one builder of every user object the portal
/// answers (`portals/self.user`, `community/self`, `community/users/<u>`; docs/portal.md,
/// "Users"). The fields are those ArcGIS answers that Outpost knows: no e-mail, no names
/// beyond the user name, no groups (Outpost has none).
struct PortalUserJSON {
    var user: ServerUser
    /// The portal's organisation (`portals/self.id`), the user's `orgId`.
    var organization: String
    /// When the user was added (epoch ms), if the backend says; also `modified` (a user does
    /// not change here).
    var created: Int64?
    /// The full user resource, which ArcGIS answers only to the user themselves and to
    /// administrators: role, privileges, level, licence type and groups (always empty). Anyone
    /// else gets the public profile (who the administrators are is no one else's business).
    var fullProfile = false

    /// A user's id: the first 128 bits of SHA-256 over `outpost-user:<lower-cased name>`, as 32
    /// hex digits (ArcGIS's form). Derived, not stored: stable across restarts and backends, distinct per
    /// name, the same for a name removed and added again (as its items, which the name owns,
    /// are). An id, not a secret: anyone who knows a name can compute it.
    static func id(of name: String) -> String {
        SHA256.hash(data: Array("outpost-user:\(name.lowercased())".utf8)).prefix(16).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// ArcGIS's built-in role a user's role is: `role` and `roleId` alike.
    static func role(_ role: UserRole) -> String {
        switch role {
        case .admin: "org_admin"
        case .editor: "org_publisher"
        case .viewer: "org_user"
        }
    }

    static func privileges(_ role: UserRole) -> [String] {
        var privileges = ["portal:user:joinGroup", "portal:user:viewOrgItems"]
        if role >= .editor { privileges += ["portal:user:createItem", "portal:user:shareToOrg", "portal:user:shareToPublic"] }
        if role == .admin { privileges += ["portal:admin:viewItems", "portal:admin:updateItems", "portal:admin:deleteItems"] }
        return privileges
    }

    var json: JSONValue {
        var answer: JSONObject = [
            "id": .string(Self.id(of: user.name)), "username": .string(user.name), "fullName": .string(user.name),
            "firstName": .string(user.name), "lastName": "", "provider": "arcgis", "access": "org",
            "orgId": .string(organization), "userType": "arcgisonly",
            "created": created.map(JSONValue.int) ?? .null, "modified": created.map(JSONValue.int) ?? .null,
        ]
        guard fullProfile else { return .object(answer) }
        let role = Self.role(user.role)
        answer["role"] = .string(role)
        answer["roleId"] = .string(role)
        answer["privileges"] = .array(Self.privileges(user.role).map(JSONValue.string))
        // Level 1 is for members who view; 2 for those who also create (ArcGIS's built-in roles).
        answer["level"] = .string(user.role == .viewer ? "1" : "2")
        answer["userLicenseTypeId"] = .string(user.role == .viewer ? "viewerUT" : "creatorUT")
        answer["groups"] = []
        return .object(answer)
    }
}
