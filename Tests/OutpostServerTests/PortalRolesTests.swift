import Foundation
import Hummingbird
import HummingbirdTesting
import OutpostServer
import OutpostWire
import Testing

/// The portal's roles list and its answer for paths it does not serve (docs/portal.md,
/// "Roles"): what the ArcGIS API for Python 2.4.4 asks while a `GIS` starts, whose OAuth
/// client drops its token after any 4xx status.
@Suite struct PortalRolesTests {
    @Test func theRolesListIsPagedEmptyToMembersAndRefusedToAnonymousCallers() async throws {
        try await PortalRoutesTests.withSecuredPortal { client, _, tokens in
            // As the API for Python asks it (`_roles_page`): a POST with start and num.
            for portal in ["self", "0utp0st0rg"] {
                let roles = try await post(
                    client, "\(portalURL)/portals/\(portal)/roles", [("f", "json"), ("start", "1"), ("num", "100"), ("token", tokens["vic"]!)])
                #expect(roles == ["total": 0, "start": 1, "num": 100, "nextStart": -1, "roles": []], "\(roles)")
            }
            let paged = try await get(client, "/sharing/rest/portals/self/roles?f=json&start=3&num=5&token=\(tokens["root"]!)")
            #expect(paged == ["total": 0, "start": 3, "num": 5, "nextStart": -1, "roles": []], "\(paged)")
            let anonymous = try await get(client, "\(portalURL)/portals/self/roles?f=json")
            #expect(anonymous["error"]?["code"] == 403, "\(anonymous)")
            let other = try await get(client, "\(portalURL)/portals/someoneelse/roles?f=json&token=\(tokens["vic"]!)")
            #expect(other["error"]?["code"] == 404, "\(other)")
        }
    }

    @Test func anUnknownPortalPathAnswersArcGISsErrorEnvelopeAsRestDoes() async throws {
        try await PortalRoutesTests.withSecuredPortal { client, _, tokens in
            let rest = try await client.execute(uri: "/arcgis/rest/nothing/here?f=json&token=\(tokens["vic"]!)", method: .get) { $0.status }
            for root in [portalURL, "/sharing/rest"] {
                for method in [HTTPRequest.Method.get, .post] {
                    let (status, type, answer) = try await client.execute(
                        uri: "\(root)/portals/self/nothing?f=json&token=\(tokens["vic"]!)", method: method
                    ) { ($0.status, $0.headers[.contentType] ?? "", json($0)) }
                    // HTTP 200, as ArcGIS answers its errors: a 4xx status costs the OAuth client its token.
                    #expect(status == .ok && status == rest && type.hasPrefix("application/json"), "\(root) \(method) \(status) \(type)")
                    #expect(answer["error"]?["code"] == 404, "\(root) \(method) \(answer)")
                }
            }
            // Routes beside the catch-all still answer.
            #expect(try await get(client, "\(portalURL)/portals/self?f=json")["id"] == "0utp0st0rg")
            #expect(try await get(client, "\(portalURL)/community/self?f=json&token=\(tokens["vic"]!)")["username"] == "vic")
        }
    }
}
