import OutpostStorage
import Testing

/// The rule that a token outliving what its kind can be issued with was minted in another time
/// (a test target's clock set far ahead, then reset).
@Suite struct TokenLifetimesTests {
    static let minute: Int64 = 60_000
    static let now: Int64 = 1_800_000_000_000

    @Test(
        arguments: [
            // (remaining minutes, API key slot, refused)
            (60, nil, false), (1440, nil, false), (1440 + 5, nil, false), (1440 + 6, nil, true),
            (Int64(366 * 24 * 60), 1, false), (Int64(366 * 24 * 60 + 6), 1, true), (Int64(366 * 24 * 60), 0, false),
            // An app token (slot 3) lives as a user token does.
            (1440 + 6, 3, true), (-10, nil, false), (Int64(8_000 * 366 * 24 * 60), nil, true), (Int64(8_000 * 366 * 24 * 60), 2, true),
        ] as [(Int64, Int?, Bool)])
    func aTokenOutlivingItsKindIsMintedInAnotherTime(_ remaining: Int64, _ slot: Int?, _ refused: Bool) {
        let lifetimes = TokenLifetimes(userTokenMinutes: 1440)
        #expect(lifetimes.mintedInAnotherTime(expires: Self.now + remaining * Self.minute, now: Self.now, apiSlot: slot) == refused)
    }

    @Test func theStandardLifetimesAllowAYearForEveryKind() {
        let year = Int64(366 * 24 * 60) * Self.minute
        #expect(!TokenLifetimes.standard.mintedInAnotherTime(expires: Self.now + year, now: Self.now, apiSlot: nil))
        #expect(TokenLifetimes.standard.mintedInAnotherTime(expires: Self.now + 2 * year, now: Self.now, apiSlot: nil))
    }
}
