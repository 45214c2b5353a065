import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostDataTools
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The server's backups (`serve --backup-dir`, `/arcgis/rest/admin/backups`; docs/operations.md,
/// "Backups from the server") and the home's organisation page that takes them.
@Suite struct BackupRoutesTests {
    static func withServer(
        take: Bool = true, _ body: @Sendable (any TestClientProtocol, SpatiaLiteBackend, String, [String: String]) async throws -> Void
    ) async throws {
        let data = TestFolders.make("backups-data")
        let folder = TestFolders.make("backups")
        let store = try SpatiaLiteBackend(dataDirectory: data)
        try DemoData.seed(store, testdataDirectory: TestFolders.testdata)
        var tokens: [String: String] = [:]
        for (name, role) in [("ada", UserRole.admin), ("eve", .editor), ("ed", .editor), ("vic", .viewer)] {
            try store.users.addUser(name, role: role, password: "\(name)-password", rounds: 1000)
            tokens[name] = try store.users.issueToken(for: ServerUser(name: name, role: role), minutes: 30).token
        }
        var options = ServerOptions(scheme: "https", requireAuth: true)
        let taking: (@Sendable () throws -> BackupManifest)? = { try SpatiaLiteBackup.backup(data: data, into: folder).manifest }
        options.backups = ServerBackups(directory: folder, take: take ? taking : nil)
        let issued = tokens
        let app = Application(router: buildRouter(store: store, options: options))
        try await app.test(.router) { client in try await body(client, store, folder, issued) }
    }

    static let root = "/arcgis/rest/admin/backups"

    @Test func anAdminTakesABackupThatListsAndVerifies() async throws {
        try await Self.withServer { client, _, folder, tokens in
            let made = try await post(client, "\(Self.root)/create", [("f", "json"), ("token", tokens["ada"]!)])
            let name = try #require(made["backup"]?["name"]?.stringValue, "\(made)")
            #expect((made["backup"]?["files"]?.int64Value ?? 0) >= 1, "\(made)")
            let listed = try await post(client, Self.root, [("f", "json"), ("token", tokens["ada"]!)])
            #expect(listed["backups"]?.arrayValue?.map { $0["name"]?.stringValue } == [name], "\(listed)")
            let manifest = try await post(client, "\(Self.root)/\(name)", [("f", "json"), ("token", tokens["ada"]!)])
            #expect(manifest["files"]?.arrayValue?.isEmpty == false, "\(manifest)")
            // What the server wrote is a backup `outpost restore` takes: its manifest and checksums hold.
            let restored = TestFolders.make("backups-restored")
            try FileManager.default.removeItem(atPath: restored)
            let (_, identity) = try SpatiaLiteBackup.restore((folder as NSString).appendingPathComponent(name), into: restored)
            #expect(identity.epoch >= 1)
            let missing = try await post(client, "\(Self.root)/outpost-backup-nothing", [("f", "json"), ("token", tokens["ada"]!)])
            #expect(missing["error"]?["code"]?.int64Value == 404, "\(missing)")
        }
    }

    /// A backup downloads as one tar archive of its folder, which `tar` unpacks into a backup
    /// that verifies and restores.
    @Test func aBackupDownloadsAsATarThatRestores() async throws {
        try await Self.withServer { client, _, _, tokens in
            let made = try await post(client, "\(Self.root)/create", [("f", "json"), ("token", tokens["ada"]!)])
            let name = try #require(made["backup"]?["name"]?.stringValue, "\(made)")
            let (headers, tar) = try await client.execute(uri: "\(Self.root)/\(name)/download?token=\(tokens["ada"]!)", method: .get) {
                ($0.headers, Array($0.body.readableBytesView))
            }
            #expect(headers[.contentType] == "application/x-tar" && headers[.contentDisposition]?.contains("\(name).tar") == true)
            #expect(tar.count % 512 == 0 && Array(tar.suffix(1024)) == [UInt8](repeating: 0, count: 1024))
            let archive = TestFolders.file("backup.tar")
            try Data(tar).write(to: URL(fileURLWithPath: archive))
            let unpacked = TestFolders.make("backup-unpacked")
            let untar = try await ExternalTool.run("/usr/bin/tar", ["-xf", archive, "-C", unpacked], mergingErrors: true)
            #expect(untar.exitCode == 0, "\(untar.text)")
            let folder = (unpacked as NSString).appendingPathComponent(name)
            let manifest = try BackupManifest.load(folder: folder)
            try manifest.verify(folder: folder)
            let restored = TestFolders.make("backup-restored-from-tar")
            try FileManager.default.removeItem(atPath: restored)
            _ = try SpatiaLiteBackup.restore(folder, into: restored)
            // Only an administrator downloads one.
            let refused = try await client.execute(uri: "\(Self.root)/\(name)/download?f=json&token=\(tokens["eve"]!)", method: .get) { json($0) }
            #expect(refused["error"]?["code"]?.int64Value == 403, "\(refused)")
        }
    }

    @Test func theJobQueueIsAnAdministratorsToSee() async throws {
        try await Self.withServer { client, _, _, tokens in
            let queue = try await post(client, "/arcgis/rest/admin/jobs", [("f", "json"), ("token", tokens["ada"]!)])
            #expect(queue["running"]?.int64Value == 0 && queue["queued"]?.int64Value == 0, "\(queue)")
            #expect(queue["limits"]?["running"]?.int64Value == 2 && queue["callers"]?.arrayValue == [], "\(queue)")
            let refused = try await post(client, "/arcgis/rest/admin/jobs", [("f", "json"), ("token", tokens["eve"]!)])
            #expect(refused["error"]?["code"]?.int64Value == 403, "\(refused)")
        }
    }

    @Test func othersAreRefusedAndTakeNothing() async throws {
        try await Self.withServer { client, _, folder, tokens in
            for user in ["eve", "vic"] {
                let refused = try await post(client, "\(Self.root)/create", [("f", "json"), ("token", tokens[user]!)])
                #expect(refused["error"]?["code"]?.int64Value == 403, "\(user): \(refused)")
            }
            let anonymous = try await post(client, "\(Self.root)/create", [("f", "json")])
            #expect(anonymous["error"]?["code"]?.int64Value == 499, "\(anonymous)")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).isEmpty)
        }
    }

    @Test func withoutTakingTheServerSaysHowAndTheHomeOffersNoButton() async throws {
        try await Self.withServer(take: false) { client, _, _, tokens in
            let refused = try await post(client, "\(Self.root)/create", [("f", "json"), ("token", tokens["ada"]!)])
            #expect(refused["error"]?["details"]?.jsonText.contains("pg_basebackup") == true, "\(refused)")
            var admin = HomeBrowser(client)
            _ = try await admin.signIn("ada", password: "ada-password")
            let page = try await admin.open("organization.html")
            #expect(page.visibleText.contains("Backups") && !page.text.contains("actions/takeBackup"), "\(page)")
        }
    }

    @Test func theHomesOrganizationPageTakesAndListsBackups() async throws {
        try await Self.withServer { client, _, _, _ in
            var admin = HomeBrowser(client)
            _ = try await admin.signIn("ada", password: "ada-password")
            let page = try await admin.open("organization.html")
            #expect(page.text.contains("id=\"backup-form\""), "\(page)")
            let taken = try await admin.submit("takeBackup", [("return", "organization.html")])
            #expect(taken.visibleText.contains("Backup outpost-backup-") && taken.text.contains("id=\"backups\""), "\(taken)")
            var editor = HomeBrowser(client)
            _ = try await editor.signIn("eve", password: "eve-password")
            _ = try await editor.open("index.html")
            let refused = try await editor.submit("takeBackup", [("return", "organization.html")])
            #expect(refused.text.contains("class=\"flash failed\""), "\(refused)")
            // Each backup downloads from the page, as the administrator only.
            let link = try #require(HomeBrowser.Page.firstMatch(#"href="/arcgis/home/(backup\.tar\?name=[^"]+)""#, in: taken.text), "\(taken)")
            let tar = try await admin.open(link)
            #expect(
                tar.status == 200 && tar.headers[.contentType] == "application/x-tar" && tar.text.contains("/manifest.json"),
                "\(tar.status) \(tar.visibleText.prefix(400))")
            let notTheirs = try await editor.open(link)
            #expect(notTheirs.headers[.contentType] != "application/x-tar" && !notTheirs.text.contains("manifest.json"), "\(notTheirs)")
            let odd = try await admin.open("backup.tar?name=..%2Fetc")
            #expect(odd.status == 404, "\(odd.status)")
        }
    }

    @Test func theOrganizationPageShowsTheJobQueueAndStoragePerMember() async throws {
        // Without backups configured too: the page goes on past their section.
        try await OAuthFlows.with { client, _, _ in
            var admin = HomeBrowser(client)
            _ = try await admin.signIn("ada")
            let page = try await admin.open("organization.html")
            let backups = page.text.range(of: "id=\"backups-heading\"").map { String(page.text[$0.lowerBound...].prefix(400)) } ?? ""
            #expect(backups.contains("Backups are not configured"), "\(backups)")
            #expect(page.text.contains("id=\"jobs-now\"") && page.text.contains("id=\"storage\""), "\(page.text.suffix(1_500))")
        }
        try await Self.withServer { client, _, _, tokens in
            _ = try await post(
                client, "/arcgis/sharing/rest/content/users/eve/addItem",
                [
                    ("f", "json"), ("token", tokens["eve"]!), ("type", "Code Sample"), ("title", "Eve's notes"),
                    ("text", String(repeating: "n", count: 2_000)),
                ])
            var admin = HomeBrowser(client)
            _ = try await admin.signIn("ada", password: "ada-password")
            let page = try await admin.open("organization.html")
            #expect(page.visibleText.contains("0 running (at most 2 at once), 0 waiting"), "\(page)")
            let usage = try await post(client, "/arcgis/rest/admin/storage", [("f", "json"), ("token", tokens["ada"]!)])
            let eves = usage["owners"]?.arrayValue?.first { $0["owner"]?.stringValue == "eve" }
            #expect(eves?["items"]?.int64Value == 1 && (eves?["bytes"]?.int64Value ?? 0) >= 2_000, "\(usage)")
            let refused = try await post(client, "/arcgis/rest/admin/storage", [("f", "json"), ("token", tokens["eve"]!)])
            #expect(refused["error"]?["code"]?.int64Value == 403, "\(refused)")
            let storage = try #require(page.text.range(of: "id=\"storage\"").map { String(page.text[$0.lowerBound...]) }, "\(page)")
            #expect(storage.contains(">eve<") && storage.contains("outpost (the server"), "\(storage.prefix(2_000))")
        }
    }
}
