import Foundation
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import Testing

/// The API key half of the `OAuthGrantStore` contract (docs/identity.md, "API keys") on every
/// backend: one live token per slot, checked as the app's owner with the app's scope read at
/// each check, ended with the app, its owner or a revocation, on every process.
@Suite struct APIKeyContractTests {
    static let year: Int64 = 365 * 86_400_000
    static let itemId = "0123456789abcdef0123456789abcdef"

    /// Records with `ada` (admin), `eve` (editor) and `vic` (viewer).
    static func opened(_ backend: RecordsContractBackend, clock: ManualClock) throws -> RecordsContractBackend.Opened {
        let opened = try backend.open(clock)
        for (name, role) in [("ada", UserRole.admin), ("eve", .editor), ("vic", .viewer)] {
            try opened.records.users.addUser(name, role: role, password: "long enough", rounds: 1_000)
        }
        return opened
    }

    static func app(
        _ clientId: String = "ApiKeyApp1234567", item: String = itemId, owner: String = "ada", privileges: [String] = [],
        referrers: [String] = [], registered: Int64 = 1_000
    ) -> RegisteredApp {
        RegisteredApp(
            clientId: clientId, itemId: item, owner: owner, appType: "apikey", redirectURIs: [], registered: registered, modified: registered,
            privileges: privileges, httpReferrers: referrers)
    }

    /// A token shaped as the server makes them (`AAPK`/`AAPT`, the slot at `len-10`).
    static func keyToken(slot: Int) -> String {
        let random = Credentials.randomBytes(37).map { String(format: "%02x", $0) }.joined()
        return (slot == 0 ? "AAPK" : "AAPT") + random.prefix(64) + String(slot) + random.suffix(9)
    }

    static func scope(_ app: RegisteredApp, slot: Int) -> APIKeyScope {
        APIKeyScope(clientId: app.clientId, itemId: app.itemId, slot: slot, privileges: app.privileges, httpReferrers: app.httpReferrers)
    }

    @Test(arguments: RecordsContractBackend.all)
    func issuingASlotEndsItsPreviousTokenAndLeavesTheOtherSlots(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let app = Self.app(privileges: ["premium:user:geocode"], referrers: ["https://maps.example/*"])
        try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        let expires = clock.milliseconds() + Self.year
        let first = Self.keyToken(slot: 1)
        try store.oauth.issueAPIKeyToken(first, clientId: app.clientId, slot: 1, user: "ada", expires: expires, sealed: nil)
        let other = Self.keyToken(slot: 2)
        try store.oauth.issueAPIKeyToken(other, clientId: app.clientId, slot: 2, user: "ada", expires: expires, sealed: nil)
        #expect(try store.users.check(token: first) == .valid(ServerUser(name: "ada", role: .viewer, apiKey: Self.scope(app, slot: 1))))

        let second = Self.keyToken(slot: 1)
        try store.oauth.issueAPIKeyToken(second, clientId: app.clientId, slot: 1, user: "ada", expires: expires, sealed: nil)
        #expect(try store.users.check(token: first) == .unknown, "one live token per slot")
        #expect(try store.users.check(token: second) == .valid(ServerUser(name: "ada", role: .viewer, apiKey: Self.scope(app, slot: 1))))
        #expect(try store.users.check(token: other) == .valid(ServerUser(name: "ada", role: .viewer, apiKey: Self.scope(app, slot: 2))))
        #expect(
            try store.oauth.apiKeySlots(clientId: app.clientId) == [APIKeySlot(slot: 1, expires: expires), APIKeySlot(slot: 2, expires: expires)])

        let stored = try OAuthContractTests.storedText(store, table: "outpost_tokens")
        #expect(stored.contains(OAuthContractTests.hex(Credentials.tokenHash(second))) && !OAuthContractTests.holds(second, stored), "hashed")

        #expect(throws: PortalFailure.self) {
            try store.oauth.issueAPIKeyToken(
                Self.keyToken(slot: 1), clientId: "NoSuchApp1234567", slot: 1, user: "ada", expires: expires, sealed: nil)
        }
        #expect(throws: PortalFailure.self) {
            try store.oauth.issueAPIKeyToken(Self.keyToken(slot: 3), clientId: app.clientId, slot: 3, user: "ada", expires: expires, sealed: nil)
        }
        #expect(try store.users.check(token: second) != .unknown, "a refused issue changes nothing")
    }

    /// The key's role: its owner's now, at most editor with an edit privilege, viewer without.
    @Test(arguments: RecordsContractBackend.all)
    func aKeyActsAsItsOwnerCappedByItsPrivileges(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let expires = clock.milliseconds() + Self.year
        let cases: [(owner: String, privileges: [String], role: UserRole)] = [
            ("ada", ["premium:user:geocode"], .viewer),
            ("ada", ["features:user:edit"], .editor),
            ("ada", ["features:user:fullEdit"], .editor),
            ("eve", [], .viewer),
            ("eve", ["features:user:edit"], .editor),
            ("vic", ["features:user:edit"], .viewer),
        ]
        for (index, (owner, privileges, role)) in cases.enumerated() {
            let app = Self.app(
                String(format: "CapApp%010d", index), item: String(format: "%032x", index), owner: owner, privileges: privileges)
            try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
            let token = Self.keyToken(slot: 0)
            try store.oauth.issueAPIKeyToken(token, clientId: app.clientId, slot: 0, user: owner, expires: expires, sealed: nil)
            #expect(
                try store.users.check(token: token) == .valid(ServerUser(name: owner, role: role, apiKey: Self.scope(app, slot: 0))),
                "\(owner) with \(privileges)")
        }
    }

    @Test(arguments: RecordsContractBackend.all)
    func aPrivilegesUpdateAppliesAtTheNextCheckOfALiveKey(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        var app = Self.app(privileges: ["portal:app:access:item:" + Self.itemId])
        try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        let token = Self.keyToken(slot: 2)
        try store.oauth.issueAPIKeyToken(token, clientId: app.clientId, slot: 2, user: "ada", expires: clock.milliseconds() + 60_000, sealed: nil)
        #expect(try store.users.check(token: token) == .valid(ServerUser(name: "ada", role: .viewer, apiKey: Self.scope(app, slot: 2))))

        try store.oauth.updateApp(
            clientId: app.clientId, privileges: ["features:user:edit"], httpReferrers: ["https://a.example/"], redirectURIs: nil)
        app.privileges = ["features:user:edit"]
        app.httpReferrers = ["https://a.example/"]
        guard case .valid(let user) = try store.users.check(token: token) else {
            Issue.record("the key ended with an update")
            return
        }
        #expect(user == ServerUser(name: "ada", role: .editor, apiKey: Self.scope(app, slot: 2)))
        #expect(user.apiKey?.mayEdit == true && user.apiKey?.items == [])
    }

    @Test(arguments: RecordsContractBackend.all)
    func revokingEndsOneSlotOrEvery(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let app = Self.app()
        let other = Self.app("OtherApp12345678", item: String(repeating: "f", count: 32))
        try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        try store.oauth.registerApp(other, secret: "secret", sealedSecret: nil)
        let expires = clock.milliseconds() + 60_000
        let tokens = (0...2).map(Self.keyToken)
        for slot in 0...2 {
            try store.oauth.issueAPIKeyToken(tokens[slot], clientId: app.clientId, slot: slot, user: "ada", expires: expires, sealed: nil)
        }
        let othersKey = Self.keyToken(slot: 1)
        try store.oauth.issueAPIKeyToken(othersKey, clientId: other.clientId, slot: 1, user: "ada", expires: expires, sealed: nil)
        // An access token of the app's client (OAuth) is no key: revoking keys leaves it.
        let (access, _) = try store.oauth.issueAccessToken(
            for: ServerUser(name: "ada", role: .admin), clientId: app.clientId, minutes: 5, refreshToken: nil)

        #expect(try store.oauth.revokeAPIKeyTokens(clientId: app.clientId, slot: 1))
        #expect(try !store.oauth.revokeAPIKeyTokens(clientId: app.clientId, slot: 1), "none live any more")
        #expect(try store.users.check(token: tokens[1]) == .unknown)
        #expect(try store.oauth.apiKeySlots(clientId: app.clientId).map(\.slot) == [0, 2])

        #expect(try store.oauth.revokeAPIKeyTokens(clientId: app.clientId, slot: nil))
        #expect(try store.users.check(token: tokens[0]) == .unknown && store.users.check(token: tokens[2]) == .unknown)
        #expect(try store.oauth.apiKeySlots(clientId: app.clientId) == [])
        #expect(try !store.oauth.revokeAPIKeyTokens(clientId: app.clientId, slot: nil))
        #expect(try store.users.check(token: othersKey) != .unknown, "another app's key")
        #expect(try store.users.check(token: access) == .valid(ServerUser(name: "ada", role: .admin)), "the client's access token")
    }

    @Test(arguments: RecordsContractBackend.all)
    func removingTheAppOrItsOwnerEndsItsKeys(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let adas = Self.app()
        let eves = Self.app("EvesApp123456789", item: String(repeating: "e", count: 32), owner: "eve")
        try store.oauth.registerApp(adas, secret: "secret", sealedSecret: nil)
        try store.oauth.registerApp(eves, secret: "secret", sealedSecret: nil)
        let expires = clock.milliseconds() + 60_000
        let (adasKey, evesKey) = (Self.keyToken(slot: 0), Self.keyToken(slot: 0))
        try store.oauth.issueAPIKeyToken(adasKey, clientId: adas.clientId, slot: 0, user: "ada", expires: expires, sealed: "sealed")
        try store.oauth.issueAPIKeyToken(evesKey, clientId: eves.clientId, slot: 0, user: "eve", expires: expires, sealed: nil)

        try store.oauth.removeApp(clientId: adas.clientId)
        #expect(try store.users.check(token: adasKey) == .unknown)
        #expect(try store.oauth.apiKeySlots(clientId: adas.clientId) == [] && store.oauth.sealedAPIKey(clientId: adas.clientId) == nil)
        try store.oauth.registerApp(adas, secret: "again", sealedSecret: nil)
        #expect(try store.users.check(token: adasKey) == .unknown, "registering the item again brings no old key back")

        #expect(try store.users.check(token: evesKey) != .unknown)
        try store.users.removeUser("EVE")
        #expect(try store.users.check(token: evesKey) == .unknown)
        #expect(try store.oauth.apiKeySlots(clientId: eves.clientId) == [])
        try store.users.addUser("eve", role: .editor, password: "long enough", rounds: 1_000)
        #expect(try store.users.check(token: evesKey) == .unknown, "a new user of the same name gets no old key")
    }

    @Test(arguments: RecordsContractBackend.all)
    func anExpiredKeyIsExpiredAndLeavesTheListing(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let app = Self.app()
        try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        let (key, later) = (Self.keyToken(slot: 0), Self.keyToken(slot: 1))
        try store.oauth.issueAPIKeyToken(key, clientId: app.clientId, slot: 0, user: "ada", expires: clock.milliseconds() + 1_000, sealed: "sealed")
        try store.oauth.issueAPIKeyToken(later, clientId: app.clientId, slot: 1, user: "ada", expires: clock.milliseconds() + 2_000, sealed: nil)
        #expect(try store.oauth.sealedAPIKey(clientId: app.clientId) == "sealed")
        clock.advance(milliseconds: 1_000)
        #expect(try store.users.check(token: key) == .expired)
        #expect(try store.oauth.apiKeySlots(clientId: app.clientId) == [APIKeySlot(slot: 1, expires: clock.milliseconds() + 1_000)])
        #expect(try store.oauth.sealedAPIKey(clientId: app.clientId) == nil, "only while slot 0 is live")
        #expect(try !store.oauth.revokeAPIKeyTokens(clientId: app.clientId, slot: 0), "an expired key was not live")
    }

    @Test(arguments: RecordsContractBackend.all)
    func theSealedAPIKeyIsKeptForSlotZeroWhileItIsLive(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let store = try Self.opened(backend, clock: clock).records
        let app = Self.app()
        try store.oauth.registerApp(app, secret: "secret", sealedSecret: nil)
        let expires = clock.milliseconds() + 60_000
        #expect(try store.oauth.sealedAPIKey(clientId: app.clientId) == nil)
        try store.oauth.issueAPIKeyToken(Self.keyToken(slot: 1), clientId: app.clientId, slot: 1, user: "ada", expires: expires, sealed: "slot one")
        #expect(try store.oauth.sealedAPIKey(clientId: app.clientId) == nil, "apiToken slots are shown once")
        try store.oauth.issueAPIKeyToken(Self.keyToken(slot: 0), clientId: app.clientId, slot: 0, user: "ada", expires: expires, sealed: "first")
        #expect(try store.oauth.sealedAPIKey(clientId: app.clientId) == "first")
        try store.oauth.issueAPIKeyToken(Self.keyToken(slot: 0), clientId: app.clientId, slot: 0, user: "ada", expires: expires, sealed: "reset")
        #expect(try store.oauth.sealedAPIKey(clientId: app.clientId) == "reset", "a reset replaces it")
        try store.oauth.revokeAPIKeyTokens(clientId: app.clientId, slot: 0)
        #expect(try store.oauth.sealedAPIKey(clientId: app.clientId) == nil)
    }
}
