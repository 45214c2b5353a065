import Foundation
import OutpostWire
import Testing

@testable import OutpostServer

/// The matrix's requests for the home (`AuthorizationHomeRows`): its pages and files answer
/// anyone (what a page shows is the REST API's answer to the cookie's user, which the matrix's
/// callers have none of); a form without the browser's forms' secret is refused with 403
/// whoever sends it, a token in it counting for nothing, and changes nothing.
extension MatrixCase {
    static var homeCases: [MatrixCase] {
        memberCases + backupCases + [
            .read("arcgis/home") { _ in "/arcgis/home" },
            .read("arcgis/home/signin.html") { _ in "/arcgis/home/signin.html" },
            .read("arcgis/home/postsignin.html") { _ in "/arcgis/home/postsignin.html?code=forged&state=forged" },
            .read("arcgis/home/assets/:file") { _ in "/arcgis/home/assets/home.css" },
            .read("arcgis/home/:page") { _ in "/arcgis/home/index.html" },
            .post(
                "arcgis/home/actions/:action",
                make: { s, _ in
                    let folder = s.unique("HomeForged")
                    return Probe(path: "/arcgis/home/actions/createFolder", fields: [("csrf", "forged"), ("title", folder)], object: folder)
                },
                happened: { s, p in
                    let content = try await s.made(.get("/arcgis/sharing/rest/content/users/\(AuthorizationSession.owner)?f=json"), as: .owner)
                    return content.jsonText.contains(p.object)
                }),
        ]
    }
}
