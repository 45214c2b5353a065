import Foundation
import OutpostService
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
                "portals/:portal/update",
                make: { s, _ in
                    // From the default (the first network, if any) to no route service.
                    try HelperServiceChoice().save(to: s.store)
                    return Probe(path: "\(portalRoot)/portals/self/update", fields: [("f", "json"), ("routeServiceLayer", "{}")], object: "")
                }, happened: { s, _ in try HelperServiceChoice.read(from: s.store).route == [] }),
            .post(
                "community/users/:user/delete",
                make: { s, _ in
                    let name = try freshMember(s)
                    return Probe(path: "\(portalRoot)/community/users/\(name)/delete", fields: [("f", "json")], object: name)
                }, happened: { s, p in try s.store.users.user(named: p.object) == nil }),
            .read("community/users/:user/sessions", subject: owned) { _ in "\(portalRoot)/community/users/\(eve)/sessions?f=json" },
            .post(
                "community/users/:user/sessions/:session/revoke", subject: owned,
                make: { s, _ in
                    // A fresh sign-in of the owner's: the newest of her sessions.
                    _ = try s.store.oauth.issueRefreshToken(RefreshGrant(clientId: "arcgisonline", user: eve, minutes: 30), minutes: 60)
                    let family = try s.store.oauth.sessions(user: eve).first?.family ?? ""
                    return Probe(path: "\(portalRoot)/community/users/\(eve)/sessions/\(family)/revoke", fields: [("f", "json")], object: family)
                }, happened: { s, p in try !s.store.oauth.sessions(user: eve).contains { $0.family == p.object } }),
        ]
    }
}
