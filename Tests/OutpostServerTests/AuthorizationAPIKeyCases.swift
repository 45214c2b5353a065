import Foundation
import OutpostStorage
import OutpostWire

@testable import OutpostServer

/// The matrix's requests for the API key routes (docs/identity.md, "API keys: issuing"): an
/// app's registration, update, reset and removal, a key's validation and the caller's keys.
/// Each is its owner's and the admins', never a key's.
extension MatrixCase {
    /// A fresh API key of the owner's (its app `apikey`, slot 0 live).
    static func ownersKey(_ s: AuthorizationSession) throws -> TestAPIKey {
        try TestAPIKey.issue(s.store, owner: AuthorizationSession.owner, privileges: [TestAPIKey.edit], label: s.unique("matrixkey"))
    }

    /// Whether a token is no longer accepted.
    static func ended(_ s: AuthorizationSession, _ token: String) throws -> Bool {
        guard case .valid = try s.store.users.check(token: token) else { return true }
        return false
    }

    static var apiKeyCases: [MatrixCase] {
        var cases: [MatrixCase] = [
            .read("portals/self/apiKeys", subject: owned) { _ in "\(portal)/portals/self/apiKeys?f=json&num=100" },
            MatrixCase(
                row: "oauth2/validateApiKey", subject: owned,
                make: { s, _ in
                    .get("\(sharing)/rest/oauth2/validateApiKey?f=json&privilege=\(TestAPIKey.edit)&key=\(try ownersKey(s).token)")
                }),
            .post(
                "oauth2/apps/:clientId/update", subject: owned,
                make: { s, _ in
                    let key = try ownersKey(s)
                    return Probe(
                        path: "\(sharing)/rest/oauth2/apps/\(key.clientId)/update",
                        fields: [("f", "json"), ("privileges", #"["premium:user:geocode"]"#)], object: key.clientId)
                }, happened: { s, p in try s.store.oauth.app(clientId: p.object)?.privileges == ["premium:user:geocode"] }),
            .post(
                "oauth2/apps/:clientId/resetApiKey", subject: owned,
                make: { s, _ in
                    let key = try ownersKey(s)
                    return Probe(path: "\(sharing)/rest/oauth2/apps/\(key.clientId)/resetApiKey", fields: [("f", "json")], object: key.token)
                }, happened: { s, p in try ended(s, p.object) }),
            .post(
                "oauth2/apps/:clientId/unregister", subject: owned,
                make: { s, _ in
                    let key = try ownersKey(s)
                    return Probe(path: "\(sharing)/rest/oauth2/apps/\(key.clientId)/unregister", fields: [("f", "json")], object: key.clientId)
                }, happened: { s, p in try s.store.oauth.app(clientId: p.object) == nil }),
        ]
        // The app's secret and key: its item's owner's and the admins', whoever else may see the item.
        for access in ["private", "org"] {
            for inFolder in [false, true] {
                cases.append(
                    MatrixCase(
                        row: "content/users/:user/items/:item/registeredAppInfo", label: inFolder ? "\(access), in a folder" : access,
                        subject: AuthorizationSession.subject(access),
                        make: { s, _ in
                            let key = try ownersKey(s)
                            if access != "private" {
                                guard var item = try s.store.portal.item(id: key.itemId) else { throw ArcGISError.notFound("Item") }
                                item.access = .org
                                try s.store.portal.updateItem(item, data: nil)
                            }
                            let folder = inFolder ? "\(s.objects.folderId)/" : ""
                            return .get("\(portal)/content/users/\(eve)/\(folder)items/\(key.itemId)/registeredAppInfo?f=json")
                        }))
            }
        }
        return cases
    }
}
