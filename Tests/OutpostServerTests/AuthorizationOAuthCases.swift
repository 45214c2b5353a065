import Foundation
import OutpostStorage
import OutpostWire

@testable import OutpostServer

/// The matrix's requests for the OAuth 2.0 rows (docs/identity.md): the open endpoints
/// answer every caller alike; an app is registered for an `Application` item its owner may
/// change, and shown to its owner and administrators only.
extension MatrixCase {
    static let sharing = "/arcgis/sharing"

    /// An `Application` item of the owner's with `access`, registered as an app; its client id and secret.
    static func registeredApp(_ s: AuthorizationSession) throws -> (clientId: String, secret: String) {
        let item = try s.freshItem(access: "private", type: "Application")
        let now = s.store.clock.milliseconds()
        let app = RegisteredApp(
            clientId: s.unique("matrixapp"), itemId: item, owner: AuthorizationSession.owner, appType: "server", redirectURIs: [],
            registered: now, modified: now)
        let secret = Credentials.newToken()
        try s.store.oauth.registerApp(app, secret: secret, sealedSecret: nil)
        return (app.clientId, secret)
    }

    static var oauthCases: [MatrixCase] {
        var cases: [MatrixCase] = [
            .read("oauth2/authorize") { _ in
                "\(sharing)/rest/oauth2/authorize?client_id=pythonapi&response_type=code&redirect_uri=urn%3Aietf%3Awg%3Aoauth%3A2.0%3Aoob"
            },
            .read("oauth2/approval") { _ in "\(sharing)/oauth2/approval?code=\(String(repeating: "0a", count: 32))" },
            // Single sign-on (unconfigured here, or a state the portal never sealed): refused alike for every caller.
            .read("oauth2/oidc/start", lenient: true) { _ in "\(sharing)/oauth2/oidc/start?oauth_state=AAAA" },
            .read("oauth2/oidc/callback", lenient: true) { _ in "\(sharing)/oauth2/oidc/callback?code=abc&state=AAAA" },
            // A state the portal never sealed: refused on the page whoever posts it, never by the admission.
            MatrixCase(
                row: "oauth2/signin", lenient: true,
                make: { _, _ in
                    Probe(path: "\(sharing)/oauth2/signin", fields: [("oauth_state", "AAAA"), ("username", "eve"), ("password", "wrong")])
                }),
            .post(
                "oauth2/token",
                make: { s, _ in
                    let (clientId, secret) = try registeredApp(s)
                    return Probe(
                        path: "\(sharing)/rest/oauth2/token",
                        fields: [("f", "json"), ("grant_type", "client_credentials"), ("client_id", clientId), ("client_secret", secret)])
                }),
            .post(
                "oauth2/revokeToken",
                make: { s, _ in
                    let token = try s.store.users.issueToken(for: ServerUser(name: "vic", role: .viewer), minutes: 5).token
                    return Probe(
                        path: "\(sharing)/oauth2/revokeToken", fields: [("f", "json"), ("client_id", "pythonapi"), ("token", token)], object: token)
                },
                happened: { s, p in
                    guard case .valid = try s.store.users.check(token: p.object) else { return true }
                    return false
                }),
            // Only the pythonapi client's tokens end: the matrix's own tokens live on.
            .read("oauth2/signout") { _ in "\(sharing)/oauth2/signout?f=json&client_id=pythonapi" },
            MatrixCase(
                row: "oauth2/apps/:clientId", subject: owned,
                make: { s, _ in .get("\(sharing)/rest/oauth2/apps/\(try registeredApp(s).clientId)?f=json") }),
        ]
        cases += apiKeyCases
        for access in ["private", "org"] {
            cases.append(
                .post(
                    "oauth2/registerApp", access, subject: item(access),
                    make: { s, _ in
                        let id = try s.freshItem(access: access, type: "Application")
                        return Probe(
                            path: "\(sharing)/rest/oauth2/registerApp",
                            fields: [("f", "json"), ("itemId", id), ("appType", "browser"), ("redirect_uris", #"["https://app.example/cb"]"#)],
                            object: id)
                    }, happened: { s, p in try s.store.oauth.app(itemId: p.object) != nil }))
        }
        return cases
    }
}
