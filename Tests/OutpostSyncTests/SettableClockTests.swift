import Testing

@testable import OutpostSync

/// A test target's clock (docs/testing-your-app.md, "Clock"): the system's time moved by an
/// offset a test can change while the server runs.
@Suite struct SettableClockTests {
    @Test func followsTheSystemClockUntilMoved() {
        let clock = SettableClock()
        let before = SystemClock().milliseconds()
        let now = clock.milliseconds()
        #expect(now >= before && now <= SystemClock().milliseconds())
        #expect(clock.offsetMilliseconds == 0)
    }

    @Test func advancesSetsAndResets() {
        let clock = SettableClock()
        clock.advance(milliseconds: 25 * 3_600_000)
        clock.advance(milliseconds: 1000)
        #expect(clock.offsetMilliseconds == 25 * 3_600_000 + 1000)
        #expect(clock.milliseconds() - SystemClock().milliseconds() > 25 * 3_600_000 - 1000)
        clock.set(milliseconds: 1_767_225_600_000)
        #expect(abs(clock.milliseconds() - 1_767_225_600_000) < 5_000)
        clock.reset()
        #expect(clock.offsetMilliseconds == 0)
    }
}
