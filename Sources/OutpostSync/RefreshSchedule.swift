/// A package's refresh schedule: the Quartz cron expression of `packageRefreshSchedule`
/// (offline-maps.md §2.3–2.5; `"0 30 2 * * ?"`, `"0 0 12 ? * MON *"`, `"0 0 1 ? * 6#3"`),
/// at most once a day as ArcGIS allows, in UTC. Pure: parsing, and the next time it fires.
public struct RefreshSchedule: Equatable, Sendable {
    public let expression: String
    let second: Int
    let minute: Int
    let hour: Int
    let daysOfMonth: Set<Int>?
    let months: Set<Int>
    /// Quartz numbering: 1 = Sunday … 7 = Saturday.
    let daysOfWeek: Set<Int>?
    /// `d#n`: the nth such weekday of the month.
    let nthWeekday: (day: Int, nth: Int)?
    let years: Set<Int>?

    public static func == (a: RefreshSchedule, b: RefreshSchedule) -> Bool { a.expression == b.expression }

    /// Why an expression is not a schedule Outpost runs.
    public struct Invalid: Error, Equatable, Sendable {
        public var reason: String
    }

    private static let monthNames = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    private static let dayNames = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]

    public init(_ expression: String) throws(Invalid) {
        let fields = expression.split(separator: " ").map(String.init)
        guard fields.count == 6 || fields.count == 7 else { throw Invalid(reason: "a Quartz cron expression has 6 or 7 fields") }
        self.expression = expression
        // At most daily: one second, one minute, one hour.
        guard let second = Int(fields[0]), (0...59).contains(second), let minute = Int(fields[1]), (0...59).contains(minute),
            let hour = Int(fields[2]), (0...23).contains(hour)
        else { throw Invalid(reason: "seconds, minutes and hours must be single values: a package refreshes at most once a day") }
        (self.second, self.minute, self.hour) = (second, minute, hour)
        let (dayField, weekField) = (fields[3], fields[5])
        guard dayField == "?" || weekField == "?" || (dayField == "*" && weekField == "*") else {
            throw Invalid(reason: "give a day of the month or a day of the week, the other '?'")
        }
        daysOfMonth = dayField == "?" || dayField == "*" ? nil : try Self.values(dayField, in: 1...31, names: [])
        months = try Self.values(fields[4], in: 1...12, names: Self.monthNames)
        if let hash = weekField.firstIndex(of: "#") {
            guard let day = Self.number(String(weekField[..<hash]), names: Self.dayNames), (1...7).contains(day),
                let nth = Int(weekField[weekField.index(after: hash)...]), (1...5).contains(nth)
            else { throw Invalid(reason: "'\(weekField)' is not a weekday and its number in the month (6#3)") }
            nthWeekday = (day, nth)
            daysOfWeek = nil
        } else {
            nthWeekday = nil
            daysOfWeek = weekField == "?" || weekField == "*" ? nil : try Self.values(weekField, in: 1...7, names: Self.dayNames)
        }
        years = fields.count == 7 && fields[6] != "*" ? try Self.values(fields[6], in: 1970...2199, names: []) : nil
    }

    /// The first time it fires after `instant` (epoch milliseconds, UTC); nil if never again.
    public func next(after instant: Int64) -> Int64? {
        let dayMilliseconds: Int64 = 86_400_000
        let fireOffset = Int64((hour * 60 + minute) * 60 + second) * 1000
        var day = instant >= 0 ? instant / dayMilliseconds : (instant - dayMilliseconds + 1) / dayMilliseconds
        // Five years and a day cover every schedule that fires at all (a Feb 29, a 5th weekday).
        for _ in 0..<(5 * 366 + 1) {
            let fire = day * dayMilliseconds + fireOffset
            if fire > instant, matches(day: day) { return fire }
            day += 1
        }
        return nil
    }

    private func matches(day: Int64) -> Bool {
        let (year, month, dayOfMonth) = Self.civil(day)
        // 1970-01-01 was a Thursday (Quartz 5).
        let weekday = Int(((day % 7) + 7 + 4) % 7) + 1
        if let years, !years.contains(year) { return false }
        guard months.contains(month) else { return false }
        if let daysOfMonth, !daysOfMonth.contains(dayOfMonth) { return false }
        if let daysOfWeek, !daysOfWeek.contains(weekday) { return false }
        if let nthWeekday, weekday != nthWeekday.day || (dayOfMonth - 1) / 7 + 1 != nthWeekday.nth { return false }
        return true
    }

    /// Year, month, day of a count of days since 1970-01-01 (proleptic Gregorian).
    static func civil(_ days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    private static func number(_ text: String, names: [String]) -> Int? {
        if let value = Int(text) { return value }
        return names.firstIndex(of: text.uppercased()).map { $0 + 1 }
    }

    /// `*`, a value, a list, a range, or a step (`*/2`, `1/3`, `1-5/2`).
    private static func values(_ field: String, in range: ClosedRange<Int>, names: [String]) throws(Invalid) -> Set<Int> {
        var found = Set<Int>()
        for part in field.split(separator: ",").map(String.init) {
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard pieces.count <= 2, let base = pieces.first else { throw Invalid(reason: "'\(field)' is not a cron field") }
            var bounds = range
            if base != "*" {
                let ends = base.split(separator: "-", omittingEmptySubsequences: false).map { number(String($0), names: names) }
                guard (1...2).contains(ends.count), let low = ends[0], let high = ends.last ?? nil, range.contains(low), range.contains(high),
                    low <= high
                else { throw Invalid(reason: "'\(part)' is not within \(range.lowerBound)-\(range.upperBound)") }
                bounds = low...(ends.count == 1 && pieces.count == 2 ? range.upperBound : high)
            }
            let step = pieces.count == 2 ? Int(pieces[1]) ?? 0 : 1
            guard step > 0 else { throw Invalid(reason: "'\(part)' has no valid step") }
            found.formUnion(stride(from: bounds.lowerBound, through: bounds.upperBound, by: step))
        }
        return found
    }
}
