import OutpostStorage
import OutpostSync
import OutpostTestSupport
import Testing

/// The `UserDetails` contract (a portal user's `created`, a portal token's expiry), for every
/// backend: the portal answers both on either.
@Suite struct UserDetailsContractTests {
    @Test(arguments: RecordsContractBackend.all)
    func usersKeepWhenTheyWereAddedAndValidTokensTellTheirExpiry(_ backend: RecordsContractBackend) throws {
        let clock = ManualClock()
        let opened = try backend.open(clock)
        let details = try #require(opened.records.users as? any UserDetails, "every backend tells user details")
        let added = clock.milliseconds()
        try opened.records.users.addUser("ada", role: .editor, password: "long enough", rounds: 1_000)
        clock.advance(milliseconds: 1_000)
        try opened.records.users.addUser("bob", role: .viewer, password: "long enough", rounds: 1_000)
        #expect(try details.created(user: "ADA") == added, "names compare without case")
        #expect(try details.created(user: "bob") == added + 1_000)
        #expect(try details.created(user: "nobody") == nil)

        let (token, expires) = try opened.records.users.issueToken(for: ServerUser(name: "ada", role: .editor), minutes: 10)
        #expect(try details.expiry(of: token) == expires)
        #expect(try details.expiry(of: String(repeating: "0", count: 64)) == nil)
        clock.advance(milliseconds: 10 * 60_000)
        #expect(try details.expiry(of: token) == nil, "expired")

        // The next process reads the same.
        let restarted = try opened.restart()
        let next = try #require(restarted.users as? any UserDetails)
        #expect(try next.created(user: "ada") == added)
        let (kept, keptExpiry) = try restarted.users.issueToken(for: ServerUser(name: "bob", role: .viewer), minutes: 10)
        #expect(try next.expiry(of: kept) == keptExpiry)
        // A removed user's token is no one's.
        try restarted.users.removeUser("bob")
        #expect(try next.expiry(of: kept) == nil && next.created(user: "bob") == nil)
    }
}
