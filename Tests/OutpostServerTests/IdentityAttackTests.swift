import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostClient
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// A hostile review of federation (the token exchange), user ids and user objects, item
/// references and the restore's listing of backups. Tests marked "Was a finding" failed before their fix;
/// those marked "Was a finding (fixed)" guard the fix.
@Suite struct IdentityAttackTests {
    // MARK: - Federation: the token exchange

    static func exchange(_ client: any TestClientProtocol, token: String, serverUrl: String) async throws -> JSONValue {
        try await post(client, "\(portalURL)/generateToken", [("f", "json"), ("token", token), ("serverUrl", serverUrl)])
    }

    /// Was a finding (fixed): the exchange dropped ":80" and ":443" from both sides and
    /// ignored the scheme, so a portal answering on http://localhost (port 80) vouched for
    /// http://localhost:443 (another listener on the same host), and one served over TLS for
    /// plain-HTTP http://localhost: REST JS then sent the portal token there, readable on the
    /// wire. The exchange now compares scheme and effective port (`ServerAddress`) with the
    /// scheme the server serves (`ServerOptions.scheme`) and the request's `Host`.
    @Test func theExchangeVouchesForAnotherPortOrAPlaintextSchemeOnTheSameHost() async throws {
        try await HardeningTests.withSecuredApp { client, _, tokens in
            for other in ["http://localhost:443/arcgis", "https://localhost:80/arcgis", "https://localhost/arcgis"] {
                let answer = try await Self.exchange(client, token: tokens["eve"]!, serverUrl: other)
                #expect(answer["token"] == nil, "served on http://localhost (port 80), \(other) was vouched for: \(answer)")
            }
            let same = try await Self.exchange(client, token: tokens["eve"]!, serverUrl: "http://localhost:80/arcgis")
            #expect(same["token"]?.stringValue == tokens["eve"] && same["ssl"] == false, "\(same)")
        }
        try await HardeningTests.withSecuredApp(options: ServerOptions(scheme: "https", requireAuth: true)) { client, _, tokens in
            for other in ["http://localhost/arcgis", "http://localhost:443/arcgis", "https://localhost:80/arcgis"] {
                let answer = try await Self.exchange(client, token: tokens["eve"]!, serverUrl: other)
                #expect(answer["token"] == nil, "served over TLS on port 443, \(other) was vouched for: \(answer)")
            }
            let same = try await Self.exchange(client, token: tokens["eve"]!, serverUrl: "https://LOCALHOST:443/arcgis")
            #expect(same["token"]?.stringValue == tokens["eve"] && same["ssl"] == true, "\(same)")
        }
    }

    /// Held: serverUrl spellings that a browser's or Python's URL parser reads as another
    /// host (backslashes, user information, encoded or control characters, suffixes) are
    /// refused; so are the same host spelt another way (trailing dot, encoded, port 0080),
    /// which fails closed.
    @Test func serverURLTricksGetNoToken() async throws {
        try await HardeningTests.withSecuredApp { client, _, tokens in
            let tricks = [
                "http://localhost\\@evil.example/arcgis", "http://evil.example\\@localhost/arcgis", "http://localhost\\.evil.example",
                "http://localhost:80@evil.example/arcgis", "http://:@localhost", "http://localhost%2f@evil.example", "http://local%68ost/arcgis",
                "http://localhost./arcgis", "http://localhost:0080/arcgis", "http://localhost\t.evil.example/", "http://localhost%00.evil.example",
                "http://evil.example/localhost", "http://[::1]/arcgis", "http://127.0.0.1/arcgis", "//localhost/arcgis", "http:/localhost/arcgis",
                "http:\\\\localhost", "javascript://localhost/%0aalert(1)", "http://localhost:80:80",
                "http://localhost" + String(repeating: "a", count: 4_000),
            ]
            for trick in tricks {
                let answer = try await Self.exchange(client, token: tokens["vic"]!, serverUrl: trick)
                #expect(answer["token"] == nil && answer["error"]?["code"] == 400, "\(trick.prefix(80)): \(answer)")
            }
        }
    }

    /// Held: a removed user's token is not exchanged; credentials with a token are a sign-in
    /// (a wrong password is refused and throttled, not passed to the exchange); the exchange
    /// neither lifts nor is stopped by the sign-in throttle; under token security the token
    /// service takes no GET (the token would travel in the URL).
    @Test func theExchangeNeitherRevivesTokensNorSidestepsSignIn() async throws {
        // The server's clock stands still: however slow the machine, the throttle's wait has not run out.
        try await HardeningTests.withSecuredApp(clock: ManualClock()) { client, store, tokens in
            try store.users.removeUser("eve")
            let revoked = try await Self.exchange(client, token: tokens["eve"]!, serverUrl: "http://localhost/arcgis")
            #expect(revoked["error"]?["code"] == 498 && revoked["token"] == nil, "\(revoked)")

            // A wrong password beside a valid token is a failed sign-in.
            for _ in 0..<(LoginThrottle.freeFailures + 1) {
                let wrong = try await post(
                    client, "\(portalURL)/generateToken",
                    [
                        ("f", "json"), ("username", "ada"), ("password", "wrong-password"), ("token", tokens["vic"]!),
                        ("serverUrl", "http://localhost"),
                    ])
                #expect(wrong["token"] == nil && wrong["error"] != nil, "\(wrong)")
            }
            let throttled = try await post(client, "\(portalURL)/generateToken", [("f", "json"), ("username", "ada"), ("password", "ada-password")])
            #expect(throttled["error"]?["code"] == 429, "\(throttled)")
            // The exchange still answers a valid token, and does not lift the throttle.
            let exchanged = try await Self.exchange(client, token: tokens["ada"]!, serverUrl: "http://localhost")
            #expect(exchanged["token"]?.stringValue == tokens["ada"], "\(exchanged)")
            let still = try await post(client, "\(portalURL)/generateToken", [("f", "json"), ("username", "ada"), ("password", "ada-password")])
            #expect(still["error"]?["code"] == 429, "\(still)")

            // GET with the token in the URL: not a token service under token security.
            for service in ["\(portalURL)/generateToken", "/sharing/rest/generateToken", "/arcgis/tokens/generateToken"] {
                let answer = try await get(client, "\(service)?f=json&token=\(tokens["vic"]!)&serverUrl=http%3A%2F%2Flocalhost")
                #expect(answer["token"] == nil, "\(service): \(answer)")
            }
        }
    }

    // MARK: - User ids and user objects

    /// Was a finding (fixed): user names could be 32 hex digits, and "a name won" over an id,
    /// so a user named like another user's id captured that user's `content/users/<id>` paths,
    /// which the Maps SDK for JavaScript uses for addItem, fetchItems and fetchFolders: an
    /// administrator's addItem by their own id landed in the other user's content, owned by
    /// them (private items included). `Credentials.check` now refuses such names on every
    /// backend, saying why; and ids resolve before names, so a user added earlier with such a
    /// name captures nobody.
    @Test(arguments: DemoBackend.all)
    func aUserNamedLikeAnotherUsersIdCapturesTheirPaths(_ backend: DemoBackend) async throws {
        let store = try backend.make()
        let adaId = PortalUserJSON.id(of: "ada")
        try store.users.addUser("ada", role: .admin, password: "ada-password", rounds: 1000)
        for name in [adaId, adaId.uppercased(), String(repeating: "0", count: 32)] {
            #expect(throws: UserFailure.nameLikeAnId(name)) {
                try store.users.addUser(name, role: .editor, password: "mallory-password", rounds: 1000)
            }
        }
        #expect(UserFailure.nameLikeAnId(adaId).description.contains("user ids are 32 hexadecimal digits"))
        // Names that are not 32 hex digits stay names: 31 or 33 digits, or a letter past f.
        for name in [String(adaId.dropLast()), adaId + "0", "g" + adaId.dropFirst()] {
            try store.users.addUser(name, role: .viewer, password: "viewer-password", rounds: 1000)
        }
        // The server's own name owns every service's item: an API key of a user so named that
        // names no item would reach every service.
        for name in ["outpost", "OutPost"] {
            #expect(throws: UserFailure.reservedName(name)) {
                try store.users.addUser(name, role: .editor, password: "mallory-password", rounds: 1000)
            }
        }
        try store.users.addUser("outposts", role: .viewer, password: "viewer-password", rounds: 1000)
    }

    /// The other half of the fix above: a user added before names like ids were refused (here
    /// written into the database directly) captures none of the paths of the user whose id
    /// their name is. Resolution is the portal's, the same on both backends.
    @Test func anIdResolvesBeforeALegacyNameLikeIt() async throws {
        let store = try makeDemoStore(label: "identity-legacy-name")
        defer { try? FileManager.default.removeItem(atPath: store.directory) }
        let adaId = PortalUserJSON.id(of: "ada")
        let legacy = adaId.uppercased()
        try store.users.addUser("ada", role: .admin, password: "ada-password", rounds: 1000)
        try store.write { db in
            try db.execute(
                sql: "INSERT INTO outpost_users(name, role, salt, hash, rounds, created_at) VALUES (?, 'editor', ?, ?, 1000, 1)",
                arguments: [legacy, Data(count: 16), Data(count: 32)])
        }
        let ada = try store.users.issueToken(for: ServerUser(name: "ada", role: .admin), minutes: 10).token
        let mallory = try store.users.issueToken(for: ServerUser(name: legacy, role: .editor), minutes: 10).token
        let app = Application(router: buildRouter(store: store, options: ServerOptions(requireAuth: true)))
        try await app.test(.router) { client in
            // The SDK's PortalUser.addItem, as ada: `content/users/<ada's id>/addItem`.
            let added = try await post(
                client, "\(portalURL)/content/users/\(adaId)/addItem",
                [
                    ("f", "json"), ("token", ada), ("type", "Web Map"), ("title", "Ada's secret"), ("access", "private"),
                    ("text", PortalRoutesTests.webMap),
                ])
            let id = try #require(added["id"]?.stringValue, "\(added)")
            #expect(try store.portal.item(id: id)?.owner == "ada", "ada's item is owned by the user named like her id")
            let seen = try await get(client, "\(portalURL)/content/items/\(id)?f=json&token=\(mallory)")
            #expect(seen["error"] != nil, "ada's private item is readable by the user named like her id: \(seen)")
            let listed = try await get(client, "\(portalURL)/content/users/\(adaId)?f=json&token=\(ada)")
            #expect(
                listed["username"] == "ada" && listed["items"]?.arrayValue?.count == 1, "ada's fetchItems lists another user's content: \(listed)")
            // The legacy user's own name, in any case, is ada's id: not theirs to add to.
            for path in [legacy, adaId] {
                let refused = try await post(
                    client, "\(portalURL)/content/users/\(path)/addItem",
                    [("f", "json"), ("token", mallory), ("type", "Web Map"), ("text", PortalRoutesTests.webMap)])
                #expect(refused["error"]?["code"] == 403, "\(path): \(refused)")
            }
            let byName = try await get(client, "\(portalURL)/community/users/\(legacy)?f=json&token=\(mallory)")
            #expect(byName["username"] == "ada", "\(byName)")
            // Their own id still names them.
            let own = try await get(client, "\(portalURL)/community/users/\(PortalUserJSON.id(of: legacy))?f=json&token=\(mallory)")
            #expect(own["username"]?.stringValue == legacy && own["role"] == "org_publisher", "\(own)")
        }
    }

    /// Was a finding (fixed): `community/users/<u>` answered any signed-in member another
    /// user's role, privileges, level and licence type (who the administrators are, to
    /// target). ArcGIS answers the full user only to the user and administrators ("Personal
    /// details … are returned only to the user or the administrator", "This resource is only
    /// accessible to the user themselves or to an organization administrator"); others get the
    /// public profile, now also here (`PortalUserJSON.fullProfile`; PortalUserTests has every
    /// caller and place).
    @Test func anotherMembersObjectCarriesNoRoleOrPrivileges() async throws {
        try await HardeningTests.withSecuredApp { client, _, tokens in
            let ada = try await get(client, "\(portalURL)/community/users/ada?f=json&token=\(tokens["vic"]!)")
            #expect(ada["username"] == "ada" && ada["id"]?.stringValue == PortalUserJSON.id(of: "ada"), "\(ada)")
            for field in ["role", "roleId", "privileges", "level", "userLicenseTypeId", "groups"] {
                #expect(ada[field] == nil, "vic (viewer) is told ada's \(field): \(ada[field] ?? .null)")
            }
            let herself = try await get(client, "\(portalURL)/community/users/ada?f=json&token=\(tokens["ada"]!)")
            #expect(herself["role"] != nil && herself["privileges"] != nil, "\(herself)")
        }
    }

    /// Held: through ids, nobody reads or changes what they could not by name: anonymous and
    /// other users see no private items and no folders at `content/users/<id>[/<folder>]`,
    /// may not add there, and another's item is not changed through one's own path.
    @Test(arguments: DemoBackend.all)
    func idPathsGrantNothingNamesDoNot(_ backend: DemoBackend) async throws {
        let store = try backend.make()
        var made: [String: String] = [:]
        for (name, role) in [("ada", UserRole.admin), ("eve", .editor), ("vic", .viewer)] {
            try store.users.addUser(name, role: role, password: "\(name)-password", rounds: 1000)
            made[name] = try store.users.issueToken(for: ServerUser(name: name, role: role), minutes: 10).token
        }
        let tokens = made
        let eveId = PortalUserJSON.id(of: "eve")
        let app = Application(router: buildRouter(store: store, options: ServerOptions(requireAuth: true)))
        try await app.test(.router) { client in
            let folder = try await post(
                client, "\(portalURL)/content/users/eve/createFolder", [("f", "json"), ("token", tokens["eve"]!), ("title", "Private")])
            let folderId = try #require(folder["folder"]?["id"]?.stringValue, "\(folder)")
            let added = try await post(
                client, "\(portalURL)/content/users/eve/\(folderId)/addItem",
                [
                    ("f", "json"), ("token", tokens["eve"]!), ("type", "Web Map"), ("title", "Secret"), ("access", "private"),
                    ("text", PortalRoutesTests.webMap),
                ])
            let item = try #require(added["id"]?.stringValue, "\(added)")
            for (who, token) in [("anonymous", nil), ("vic", tokens["vic"]), ("upper-case id", nil)] as [(String, String?)] {
                let suffix = token.map { "&token=\($0)" } ?? ""
                let id = who == "upper-case id" ? eveId.uppercased() : eveId
                let root = try await get(client, "\(portalURL)/content/users/\(id)?f=json\(suffix)")
                #expect(root["items"] == [] && root["folders"] == [], "\(who): \(root)")
                let inFolder = try await get(client, "\(portalURL)/content/users/\(id)/\(folderId)?f=json\(suffix)")
                #expect(inFolder["items"] == nil && inFolder["error"] != nil, "\(who): \(inFolder)")
                let byPath = try await get(client, "\(portalURL)/content/users/\(id)/items/\(item)?f=json\(suffix)")
                #expect(byPath["item"] == nil && byPath["error"] != nil, "\(who): \(byPath)")
                let user = try await get(client, "\(portalURL)/community/users/\(id)?f=json\(suffix)")
                #expect(token != nil || user["error"] != nil, "\(who): \(user)")
            }
            // vic cannot add to eve's content by id, nor delete eve's item through his own id path.
            let vicId = PortalUserJSON.id(of: "vic")
            let addByVic = try await post(
                client, "\(portalURL)/content/users/\(eveId)/addItem",
                [("f", "json"), ("token", tokens["vic"]!), ("type", "Web Map"), ("text", PortalRoutesTests.webMap)])
            #expect(addByVic["error"]?["code"] == 403, "\(addByVic)")
            let deleteByVic = try await post(
                client, "\(portalURL)/content/users/\(vicId)/items/\(item)/delete", [("f", "json"), ("token", tokens["vic"]!)])
            let survived = try store.portal.item(id: item) != nil
            #expect(deleteByVic["error"] != nil && survived, "\(deleteByVic)")
        }
    }

    // MARK: - Item references (the CLI)

    /// Was a finding (fixed): user information in an item URL was kept in the portal URL the
    /// CLI then asks, prints and records (`OfflineMapTask` writes `portal.absoluteString` into
    /// its job files), and an unusable reference's error echoed it. Such a URL (and such a
    /// `--server`) is now refused, and no error repeats what precedes an `@`.
    @Test func anItemURLsCredentialsAreNotKept() throws {
        let withCredentials = [
            "https://bob:hunter2@portal.example/arcgis/home/item.html?id=0123456789abcdef0123456789abcdef",
            "https://bob:hunter2@portal.example/arcgis/home/item.html?id=../x", "https://bob:hunter2@portal.example/arcgis/rest/services",
            "https://bob:hunter2@/arcgis/home/item.html?id=abc", "https://bob:hunter2@portal.example:99999/arcgis/home/item.html?id=abc",
            "https://bob:hunter2@@portal.example/arcgis/home/item.html?id=abc", "https://bob:hun/ter2@portal.example/arcgis/home/item.html?id=abc",
            "https://bob:hunter2 @portal.example/arcgis/home/item.html?id=abc", "ftp://bob:hunter2@portal.example/arcgis/home/item.html?id=abc",
            "bob:hunter2@portal.example/arcgis/home/item.html?id=abc",
        ]
        for text in withCredentials {
            do {
                let reference = try ItemReference(parsing: text)
                Issue.record("taken: \(reference.portal?.absoluteString ?? "")")
            } catch {
                #expect(
                    !error.description.contains("hunter2") && !error.description.contains("ter2"),
                    "the error echoes the password: \(error.description)")
            }
        }
        for server in ["https://bob:hunter2@portal.example/arcgis", "bob:hunter2@portal.example", "https://bob:hunter2@"] {
            #expect(throws: ItemReferenceError.self) { try ItemReference(itemId: "abc").portal(server: server) }
            do {
                _ = try ItemReference(itemId: "abc").portal(server: server)
            } catch {
                #expect(!error.description.contains("hunter2"), "the error echoes the password: \(error.description)")
            }
        }
    }

    /// Held: hostile references are refused, none yields an id that is not letters and
    /// digits (no `../`, no Unicode digits or letters, no encoded slashes), and a long one is
    /// refused quickly.
    @Test func hostileItemReferencesAreRefused() throws {
        let hostile = [
            "javascript:alert(1)", "javascript://portal.example/%0aalert(1)//home/item.html?id=abc", "file:///etc/passwd",
            "file://host/arcgis/home/item.html?id=abc", "data:text/html,<script>", "ftp://portal.example/arcgis/home/item.html?id=abc",
            "../../etc/passwd", "abc/../def", "abc%2f..", "https://portal.example/arcgis/sharing/rest/content/items/..%2F..%2Fadmin",
            "https://portal.example/arcgis/sharing/rest/content/items/../../x", "https://portal.example/arcgis/home/item.html?id=..%2Fx",
            "https://portal.example/arcgis/home/item.html?id=%2e%2e", "١٢٣٤", "ａｂｃ", "abc\u{0301}", "abc\ndef", "abc\u{0}",
            "https://portal.example/arcgis/home/item.html?id=abc%0Adef", "https:///arcgis/home/item.html?id=abc",
            "https://portal.example/arcgis/home/item.html?id=", String(repeating: "a", count: 1_000_000) + "!",
            "https://portal.example/" + String(repeating: "x/", count: 100_000) + "home/item.html?id=%E2%80%AE",
        ]
        for text in hostile {
            #expect(throws: ItemReferenceError.self, "\(text.prefix(60))") { try ItemReference(parsing: text) }
        }
        // What is taken is letters and digits, and the portal is http(s) with the URL's host.
        let taken = try ItemReference(parsing: "HTTPS://Portal.Example/a/../arcgis/sharing/rest/content/items/ABC123/data?id=zzz#webmap=x")
        #expect(taken.itemId == "ABC123" && taken.portal?.host?.lowercased() == "portal.example", "\(taken)")
    }

    // MARK: - Restore: the listing of backups

    static func withBackups(_ body: (_ folder: String, _ real: String) throws -> Void) throws {
        let store = try makeDemoStore(label: "identity-backups")
        let folder = NSTemporaryDirectory() + "identity-backups-\(UUID().uuidString)"
        defer {
            try? FileManager.default.removeItem(atPath: store.directory)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let (real, _) = try SpatiaLiteBackup.backup(data: store.directory, into: folder)
        try body(folder, real)
    }

    /// Was a finding (fixed): backup folder names were printed as they are: a name holding escape
    /// sequences or newlines (any file name on Linux) drives the operator's terminal or forges
    /// lines of the listing. Escape control characters in `ListedBackup.summary` (and in the
    /// restore's other messages).
    @Test func aBackupsNameCannotDriveTheTerminal() throws {
        try Self.withBackups { folder, real in
            let hostile = (folder as NSString).appendingPathComponent(
                "outpost-backup-x\u{1b}]0;owned\u{07}\u{1b}[2J\nrestoring the newest backup: all checks passed")
            try FileManager.default.copyItem(atPath: real, toPath: hostile)
            do throws(BackupChoiceNeeded) {
                _ = try SpatiaLiteBackup.chooseBackup(folder, latest: false)
                Issue.record("a choice should have been needed")
            } catch {
                let text = error.description
                #expect(
                    !text.unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x07 },
                    "the listing prints raw escape sequences: \(text.debugDescription)")
                #expect(
                    !text.split(separator: "\n").contains { $0.hasPrefix("restoring") },
                    "a name forges a line of the listing: \(text.debugDescription)")
            }
        }
    }

    /// Was a finding (fixed): `--latest` took the greatest name, not the newest backup: a folder named
    /// `outpost-backup-z…` (or any name sorting after the timestamps, e.g. a copy, or one
    /// whose manifest does not even parse) is "the newest", so a restore fails or restores
    /// the wrong snapshot. Take only names `BackupRotation.name` makes (or order by the
    /// manifest's `createdAt`), and skip unreadable manifests.
    @Test func latestIsTheNewestReadableBackupNotTheGreatestName() throws {
        try Self.withBackups { folder, real in
            let planted = (folder as NSString).appendingPathComponent("outpost-backup-zzz")
            try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: true)
            try Data("{ not json".utf8).write(to: URL(fileURLWithPath: (planted as NSString).appendingPathComponent(BackupManifest.fileName)))
            let chosen = try SpatiaLiteBackup.chooseBackup(folder, latest: true)
            #expect(chosen == real, "--latest chose \(chosen)")
        }
    }

    /// Held: a thousand backups (and stray entries) are listed quickly, newest first; files
    /// named like backups, entries without a manifest and dangling symlinks are skipped.
    @Test func manyEntriesAreListedQuickly() throws {
        try Self.withBackups { folder, real in
            let manager = FileManager.default
            for index in 0..<1000 {
                try manager.createSymbolicLink(
                    atPath: (folder as NSString).appendingPathComponent("outpost-backup-1999\(String(format: "%04d", index))"),
                    withDestinationPath: real)
            }
            try Data("x".utf8).write(to: URL(fileURLWithPath: (folder as NSString).appendingPathComponent("outpost-backup-file")))
            try manager.createDirectory(
                atPath: (folder as NSString).appendingPathComponent("outpost-backup-empty"), withIntermediateDirectories: true)
            try manager.createSymbolicLink(
                atPath: (folder as NSString).appendingPathComponent("outpost-backup-dangling"), withDestinationPath: "/nonexistent")
            let start = Date()
            let listed = SpatiaLiteBackup.backups(in: folder)
            #expect(Date().timeIntervalSince(start) < 10, "listing took \(Date().timeIntervalSince(start)) s")
            #expect(listed.count == 1001 && listed.first?.path == real, "\(listed.count) \(listed.first?.path ?? "")")
        }
    }
}
