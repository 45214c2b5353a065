import Foundation
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import Testing

/// App tokens (`client_credentials` without `apiToken`, docs/identity.md, "API keys: app
/// tokens") on every backend: scoped by the app like its keys and at most a viewer, many live
/// at once, no key slot; ended with the app, `revokeAPIKeyTokens(slot: nil)`, their owner or
/// their own revocation, not by signing out. And result files keep the service they were made for.
@Suite struct AppTokenContractTests {
    static func scope(_ app: RegisteredApp) -> APIKeyScope {
        APIKeyScope(
            clientId: app.clientId, itemId: app.itemId, slot: APIKeySlot.appToken, privileges: app.privileges, httpReferrers: app.httpReferrers)
    }

    @Test(arguments: RecordsContractBackend.all)
    func appTokensAreScopedViewersManyAtOnceAndNoKeySlot(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try APIKeyContractTests.opened(backend, clock: clock).records
        // Even an app whose privileges let its keys edit gives tokens that only read.
        let app = APIKeyContractTests.app(privileges: ["portal:app:access:item:" + APIKeyContractTests.itemId, "features:user:edit"])
        try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        let scoped = TokenCheck.valid(ServerUser(name: "ada", role: .viewer, apiKey: Self.scope(app)))
        let tokens = try (0..<3).map { _ in try store.oauth.issueAppToken(clientId: app.clientId, user: "ada", minutes: 60) }
        #expect(Set(tokens.map(\.token)).count == 3)
        #expect(tokens.allSatisfy { $0.expires == clock.milliseconds() + 3_600_000 })
        for (token, _) in tokens { #expect(try store.users.check(token: token) == scoped) }
        #expect(try store.oauth.apiKeySlots(clientId: app.clientId) == [] && store.oauth.sealedAPIKey(clientId: app.clientId) == nil)

        // A key's slot issued and replaced leaves them; signing out too (they are no session).
        let key = APIKeyContractTests.keyToken(slot: 1)
        try store.oauth.issueAPIKeyToken(key, clientId: app.clientId, slot: 1, user: "ada", expires: clock.milliseconds() + 60_000, sealed: nil)
        try store.oauth.issueAPIKeyToken(
            APIKeyContractTests.keyToken(slot: 1), clientId: app.clientId, slot: 1, user: "ada", expires: clock.milliseconds() + 60_000, sealed: nil)
        #expect(try store.oauth.apiKeySlots(clientId: app.clientId).map(\.slot) == [1])
        try store.oauth.signOut(user: "ada", clientId: nil)
        try store.oauth.signOut(user: "ada", clientId: app.clientId)
        for (token, _) in tokens { #expect(try store.users.check(token: token) == scoped) }

        #expect(try store.oauth.revokeAccessToken(tokens[0].token))
        #expect(try store.users.check(token: tokens[0].token) == .unknown)
        #expect(try store.users.check(token: tokens[1].token) == scoped, "the others stay live")
        #expect(try store.oauth.revokeAPIKeyTokens(clientId: app.clientId, slot: nil))
        #expect(try store.users.check(token: tokens[1].token) == .unknown && store.users.check(token: tokens[2].token) == .unknown)

        #expect(throws: (any Error).self) { try store.oauth.issueAppToken(clientId: "NoSuchApp1234567", user: "ada", minutes: 60) }
        let late = try store.oauth.issueAppToken(clientId: app.clientId, user: "ada", minutes: 1)
        clock.advance(milliseconds: 60_000)
        #expect(try store.users.check(token: late.token) == .expired)
    }

    @Test(arguments: RecordsContractBackend.all)
    func appTokensEndWithTheAppAndWithTheirOwner(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try APIKeyContractTests.opened(backend, clock: clock).records
        let adas = APIKeyContractTests.app(referrers: ["https://maps.example/*"])
        let eves = APIKeyContractTests.app(
            "EvesApp123456789", item: String(repeating: "e", count: 32), owner: "eve", privileges: ["premium:user:geocode"])
        try store.oauth.registerApp(adas, secret: "secret", sealedSecret: nil)
        try store.oauth.registerApp(eves, secret: "secret", sealedSecret: nil)
        let adasToken = try store.oauth.issueAppToken(clientId: adas.clientId, user: "ada", minutes: 60).token
        let evesToken = try store.oauth.issueAppToken(clientId: eves.clientId, user: "eve", minutes: 60).token
        #expect(try store.users.check(token: adasToken) == .valid(ServerUser(name: "ada", role: .viewer, apiKey: Self.scope(adas))))
        #expect(try store.users.check(token: evesToken) == .valid(ServerUser(name: "eve", role: .viewer, apiKey: Self.scope(eves))))

        try store.oauth.removeApp(clientId: adas.clientId)
        #expect(try store.users.check(token: adasToken) == .unknown)
        try store.oauth.registerApp(adas, secret: "again", sealedSecret: nil)
        #expect(try store.users.check(token: adasToken) == .unknown, "registering the item again brings no old token back")
        try store.users.removeUser("EVE")
        try store.users.addUser("eve", role: .editor, password: "long enough", rounds: 1_000)
        #expect(try store.users.check(token: evesToken) == .unknown, "a new user of the same name gets no old token")
    }

    /// An app configuring neither privileges nor referrers: its tokens read what its owner may
    /// (ArcGIS: "all items of app owner can be accessed if the privileges list is not
    /// configured"), still as a viewer and still an app token with its scope (refused where
    /// keys are; ended with the app).
    @Test(arguments: RecordsContractBackend.all)
    func anAppConfiguringNothingGivesItsOwnersViewerReach(_ backend: RecordsContractBackend) throws {
        let store = try APIKeyContractTests.opened(backend, clock: ManualClock()).records
        let app = APIKeyContractTests.app("EvesApp123456789", owner: "eve")
        try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        let token = try store.oauth.issueAppToken(clientId: app.clientId, user: "eve", minutes: 60).token
        let scope = APIKeyScope(clientId: app.clientId, itemId: app.itemId, slot: APIKeySlot.appToken, privileges: [])
        #expect(try store.users.check(token: token) == .valid(ServerUser(name: "eve", role: .viewer, apiKey: scope)))
        #expect(scope.reaches(itemId: "0123456789abcdef0123456789abcdee", owner: "ada", keyOwner: "eve"), "what its owner may see")
        var key = scope
        key.slot = 1
        #expect(!key.reaches(itemId: "0123456789abcdef0123456789abcdee", owner: "ada", keyOwner: "eve"), "a key naming none: its owner's own")
        try store.oauth.signOut(user: "eve", clientId: nil)
        #expect(try store.users.check(token: token) != .unknown)
        try store.oauth.revokeAPIKeyTokens(clientId: app.clientId, slot: nil)
        #expect(try store.users.check(token: token) == .unknown)
    }

    @Test(arguments: RecordsContractBackend.all)
    func aResultFileIsItsOwnersOnlyBelowTheServiceItWasMadeFor(_ backend: RecordsContractBackend) throws {
        let files = try backend.open(ManualClock()).records.resultFiles
        try files.recordResultFile("p.json", owner: "ada", service: "Folder/Parcels")
        #expect(try files.resultFileService("p.json") == "Folder/Parcels" && files.resultFileOwner("p.json") == "ada")
        #expect(try files.resultFileOwner("p.json", under: "folder/PARCELS") == "ada")
        #expect(try files.resultFileOwner("p.json", under: "Demo") == nil)
        #expect(try files.resultFileOwner("p.json", under: "Parcels") == nil, "another folder's service of the same name")
        try files.recordResultFile("t.tpkx", owner: "ada", service: "MapServer:Demo")
        #expect(try files.resultFileOwner("t.tpkx", under: "Demo") == nil, "a tile package is no feature service's")
        // Made before services were kept: its owner's below any service, as before.
        try files.recordResultFile("old.json", owner: "eve", service: nil)
        #expect(try files.resultFileService("old.json") == nil && files.resultFileOwner("old.json", under: "Demo") == "eve")
        #expect(try files.resultFileService("unknown.json") == nil && files.resultFileOwner("unknown.json", under: "Demo") == "")
        try files.recordResultFile("p.json", owner: "ada", service: "Demo")
        #expect(try files.resultFileOwner("p.json", under: "Demo") == "ada" && files.resultFileOwner("p.json", under: "Folder/Parcels") == nil)
        try files.forgetResultFiles(["p.json"])
        #expect(try files.resultFileService("p.json") == nil)
    }
}
