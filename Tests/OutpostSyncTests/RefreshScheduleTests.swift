import Testing

@testable import OutpostSync

/// Refresh schedules (docs/map-areas.md, "Refresh schedules"): the Quartz expressions the
/// ArcGIS API for Python writes, and when each fires next, in UTC.
@Suite struct RefreshScheduleTests {
    /// 2026-11-23 (a Monday) 21:00:00 UTC.
    static let monday: Int64 = 1_795_467_600_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 24 * hour

    static let firings: [(String, Int64)] = [
        // daily at 02:30 (the Python API's "Daily" with hour 2, minute 30): tomorrow.
        ("0 30 2 * * ?", monday + 5 * hour + 30 * 60_000),
        // weekly, Mondays at 12:00 (already past today): next Monday.
        ("0 0 12 ? * MON *", monday + 7 * day - 9 * hour),
        // weekly on Tuesday by number (3 = TUE) at 01:00.
        ("0 0 1 ? * 3", monday + 4 * hour),
        // monthly, the third Friday at 01:00: 2026-12-18.
        ("0 0 1 ? * 6#3", monday + 24 * day + 4 * hour),
        // the first of each month at midnight: 2026-12-01.
        ("0 0 0 1 * ?", monday + 8 * day - 21 * hour),
        // Feb 29 only: 2028-02-29.
        ("0 0 0 29 FEB ?", 1_835_395_200_000),
    ]

    @Test(arguments: firings.indices) func firesNextWhenItSays(_ row: Int) throws {
        let (expression, expected) = Self.firings[row]
        #expect(try RefreshSchedule(expression).next(after: Self.monday) == expected, "\(expression)")
    }

    @Test func aScheduleFiringExactlyNowFiresTheNextTimeAfter() throws {
        let daily = try RefreshSchedule("0 0 21 * * ?")
        #expect(daily.next(after: Self.monday) == Self.monday + Self.day)
        #expect(daily.next(after: Self.monday - 1) == Self.monday)
    }

    @Test func aYearThatHasPassedNeverFiresAgain() throws {
        #expect(try RefreshSchedule("0 0 0 * * ? 2020").next(after: Self.monday) == nil)
    }

    static let refusals = [
        "*/5 * * * * ?", "0 */10 2 * * ?", "0 0 * * * ?", "0 0 25 * * ?", "0 0 1 1 * MON", "0 0 1 ? * 6#9", "0 0 1 ? * FOO", "every day",
        "0 0 1 32 * ?", "0 0 1 ? 13 *",
    ]

    @Test(arguments: refusals) func moreThanDailyOrMalformedIsRefused(_ expression: String) {
        #expect(throws: RefreshSchedule.Invalid.self, "\(expression)") { try RefreshSchedule(expression) }
    }

    @Test func civilDatesAreExact() {
        #expect(RefreshSchedule.civil(0) == (1970, 1, 1))
        #expect(RefreshSchedule.civil(20_415) == (2025, 11, 23))
        #expect(RefreshSchedule.civil(-1) == (1969, 12, 31))
    }
}
