import FuzzCommon
import OutpostSync

// Package refresh schedules (Quartz cron, `packageRefreshSchedule`): RefreshSchedule(_:), then
// the next firing after a fixed date and after a later one the input picks. Oracles: a firing
// is after the instant, at the schedule's time of day, at most five years and a day later
// (the search's window), and any instant between the two gives the same next firing.

/// 2026-11-27T11:00:00Z.
private let fixedDate: Int64 = 1_795_777_200_000
private let day: Int64 = 86_400_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let parts = FuzzInput(start, count).fields(2)
    guard let schedule = try? RefreshSchedule(parts[0]) else { return 0 }
    // A second instant, 1970-2199, from the second field.
    var stream = ByteStream(Array(parts[1].utf8))
    let later = Int64(stream.int64().magnitude % 7_258_118_400_000)
    for instant in [fixedDate, later] {
        guard let fire = schedule.next(after: instant) else { continue }
        let text = "\(parts[0]) after \(instant)"
        fuzzCheck(fire > instant, "\(text): fires at \(fire), not after")
        fuzzCheck(fire - instant <= (5 * 366 + 1) * day, "\(text): fires at \(fire), beyond the window")
        let fields = parts[0].split(separator: " ")
        let timeOfDay = (Int64(fields[2])! * 3600 + Int64(fields[1])! * 60 + Int64(fields[0])!) * 1000
        fuzzCheck(fire % day == timeOfDay, "\(text): fires at \(fire), not at its time of day")
        let between = instant + (fire - instant) / 2
        fuzzCheck(schedule.next(after: between) == fire, "\(text): from \(between) fires at another time than \(fire)")
        if let following = schedule.next(after: fire) {
            fuzzCheck(following >= fire + day, "\(text): fires twice a day (\(fire), \(following))")
        }
    }
    return 0
}

@main
enum FuzzRefreshScheduleMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
