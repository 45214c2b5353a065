import Foundation
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostServer

/// The matrix's requests for the organisation's members (`portals/self/users`, `invite`,
/// `updateuserrole`, `community/users/<name>/delete`): listed to members, changed by an
/// administrator only (API keys never), a refused change changing nothing.
extension MatrixCase {
    static let portalRoot = "/arcgis/sharing/rest"

    static func freshMember(_ s: AuthorizationSession) throws -> String {
        let name = s.unique("member")
        try s.store.users.addUser(name, role: .viewer, password: "\(name)-password-1", rounds: 1000)
        return name
    }

    static var memberCases: [MatrixCase] {
        [
            .read("portals/:portal/users") { _ in "\(portalRoot)/portals/self/users?f=json" },
            .post(
                "portals/:portal/invite",
                make: { s, _ in
                    let name = s.unique("invited")
                    let list = #"{"invitations":[{"username":"\#(name)","password":"\#(name)-password-1","role":"org_user"}]}"#
                    return Probe(path: "\(portalRoot)/portals/self/invite", fields: [("f", "json"), ("invitationList", list)], object: name)
                }, happened: { s, p in try s.store.users.user(named: p.object) != nil }),
            .post(
                "portals/:portal/updateuserrole",
                make: { s, _ in
                    let name = try freshMember(s)
                    return Probe(
                        path: "\(portalRoot)/portals/self/updateuserrole", fields: [("f", "json"), ("user", name), ("role", "org_publisher")],
                        object: name)
                }, happened: { s, p in try s.store.users.user(named: p.object)?.role == .editor }),
            .post(
                "community/users/:user/delete",
                make: { s, _ in
                    let name = try freshMember(s)
                    return Probe(path: "\(portalRoot)/community/users/\(name)/delete", fields: [("f", "json")], object: name)
                }, happened: { s, p in try s.store.users.user(named: p.object) == nil }),
        ]
    }
}
