import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostServer

/// The organisation's members in the home (`organization.html`, docs/home.md) and the portal
/// operations behind it (`portals/self/users`, `invite`, `updateuserrole`,
/// `community/users/<name>/delete`).
@Suite struct HomeMembersTests {
    static let portal = "/arcgis/sharing/rest"

    @Test(arguments: DemoBackend.all)
    func anAdminAddsAMemberChangesTheirRoleAndRemovesThem(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, _ in
            var admin = HomeBrowser(client)
            _ = try await admin.signIn("ada")
            let page = try await admin.open("organization.html")
            #expect(page.text.contains("id=\"member-form\"") && page.visibleText.contains("Token security is on"), "\(page)")
            let added = try await admin.submit(
                "addMember", [("username", "fern"), ("fullname", "Fern Field"), ("password", "fern-password-1"), ("role", "org_publisher")])
            #expect(added.visibleText.contains("'fern' added") && added.visibleText.contains("fern"), "\(added)")
            #expect(try store.users.user(named: "fern")?.role == .editor)
            // The new member signs in to the home with the password given.
            var fern = HomeBrowser(client)
            let signedIn = try await fern.signIn("fern", password: "fern-password-1")
            #expect(signedIn.visibleText.contains("Publisher (editor)"), "\(signedIn)")
            let changed = try await admin.submit("changeRole", [("user", "fern"), ("role", "org_user"), ("return", "organization.html")])
            #expect(changed.visibleText.contains("The role of 'fern' changed"), "\(changed)")
            #expect(try store.users.user(named: "fern")?.role == .viewer)
            let removed = try await admin.submit("removeMember", [("user", "fern"), ("return", "organization.html")])
            #expect(removed.visibleText.contains("'fern' removed"), "\(removed)")
            #expect(try store.users.user(named: "fern") == nil)
        }
    }

    @Test func theOrganizationKeepsAnAdministratorAndNobodyRemovesThemselves() async throws {
        try await OAuthFlows.with { client, store, tokens in
            var admin = HomeBrowser(client)
            _ = try await admin.signIn("ada")
            _ = try await admin.open("organization.html")
            let demoted = try await admin.submit("changeRole", [("user", "ada"), ("role", "org_user"), ("return", "organization.html")])
            #expect(demoted.visibleText.contains("must keep an administrator"), "\(demoted)")
            let selfRemoved = try await admin.submit("removeMember", [("user", "ada"), ("return", "organization.html")])
            #expect(selfRemoved.visibleText.contains("Nobody removes themselves"), "\(selfRemoved)")
            _ = try await HomeContentTests.addItem(client, tokens["eve"]!, owner: "eve", title: "Eve's")
            let owner = try await admin.submit("removeMember", [("user", "eve"), ("return", "organization.html")])
            #expect(owner.visibleText.contains("owns items"), "\(owner)")
            let weak = try await admin.submit(
                "addMember", [("username", "gus"), ("password", "short"), ("role", "org_user"), ("return", "organization.html")])
            #expect(weak.visibleText.contains("was not added"), "\(weak)")
            #expect(
                try store.users.user(named: "ada")?.role == .admin && store.users.user(named: "eve") != nil && store.users.user(named: "gus") == nil)
        }
    }

    @Test(arguments: DemoBackend.all)
    func othersSeeNoControlsAndTheirHandPostedFormsChangeNothing(_ backend: DemoBackend) async throws {
        try await OAuthFlows.with(backend) { client, store, tokens in
            for user in ["eve", "vic"] {
                var other = HomeBrowser(client)
                _ = try await other.signIn(user)
                let page = try await other.open("organization.html")
                #expect(page.status == 403 && !page.text.contains("member-form"), "\(user): \(page)")
                let added = try await other.submit("addMember", [("username", "mallory"), ("password", "mallory-password-1"), ("role", "org_admin")])
                #expect(added.text.contains("class=\"flash failed\""), "\(user): \(added)")
                let promoted = try await other.submit("changeRole", [("user", user), ("role", "org_admin")])
                #expect(promoted.text.contains("class=\"flash failed\""), "\(user): \(promoted)")
            }
            #expect(try store.users.user(named: "mallory") == nil && store.users.user(named: "eve")?.role == .editor)
            let listed = try await post(client, "\(Self.portal)/portals/self/users", [("f", "json"), ("token", tokens["vic"]!)])
            #expect(listed["total"]?.int64Value == 4 && listed["users"]?.arrayValue?.count == 4, "a member lists the members: \(listed)")
            let anonymous = try await post(client, "\(Self.portal)/portals/self/users", [("f", "json")])
            #expect(anonymous["error"] != nil, "\(anonymous)")
        }
    }
}
