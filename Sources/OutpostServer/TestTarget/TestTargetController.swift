import Foundation
import Hummingbird
import OutpostStorage
import OutpostWire

/// The control API of a test target, below `/_outpost` (outside `/arcgis`, so no ArcGIS
/// client reaches it by accident): the clock here, faults, the journal and snapshots in their
/// own extensions. Answers are JSON in ArcGIS's forms (errors as envelopes); under token
/// security only an admin is admitted (`AuthorizationTable.testTargetRows`).
struct TestTargetController<Backend: OutpostBackend>: Sendable {
    /// Where the control API is mounted, from the server's root.
    static var root: String { TestTargetPaths.root }

    let store: Backend
    let target: TestTarget

    func addRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes
            .read("clock") { _, c in clockAnswer(c.form.parameters) }
            .change("clock/advance") { _, c in try await advanceClock(c.form.parameters) }
            .change("clock/set") { _, c in try await setClock(c.form.parameters) }
            .change("clock/reset") { _, c in
                target.clock.reset()
                return clockAnswer(c.form.parameters)
            }
        addFaultRoutes(to: routes)
        addJournalRoutes(to: routes)
        addSnapshotRoutes(to: routes)
    }

    func clockAnswer(_ parameters: RequestParameters, done: [String]? = nil) -> Response {
        var answer: JSONObject = [
            "now": .int(target.clock.milliseconds()), "offset": .int(target.clock.offsetMilliseconds),
        ]
        if let done { answer["housekeeping"] = .array(done.map(JSONValue.string)) }
        return RESTResponse.json(.object(answer), parameters: parameters)
    }

    /// `clock/advance`: `milliseconds`, `seconds`, `minutes`, `hours` or `days` (one, positive,
    /// at most 10 years); then the housekeeping a server does on its own at intervals runs
    /// now, once, as it would have: scheduled refreshes fire, idle result files expire.
    func advanceClock(_ parameters: RequestParameters) async throws -> Response {
        let units: [(String, Int64)] = [("milliseconds", 1), ("seconds", 1000), ("minutes", 60_000), ("hours", 3_600_000), ("days", 86_400_000)]
        let given = units.compactMap { name, unit in parameters[name].map { (name, $0, unit) } }
        guard given.count == 1, let (name, text, unit) = given.first else {
            throw ArcGISError.invalidParameter("milliseconds", "give one of milliseconds, seconds, minutes, hours or days.")
        }
        guard let amount = Double(text), amount.isFinite, amount > 0, amount * Double(unit) <= Self.maximumStep else {
            throw ArcGISError.invalidParameter(name, "a positive number of at most ten years.")
        }
        target.clock.advance(milliseconds: Int64(amount * Double(unit)))
        return clockAnswer(parameters, done: await target.runHousekeeping())
    }

    /// `clock/set`: `time` as epoch milliseconds or an ISO 8601 date; the clock reads it now
    /// and goes on from there (backwards too: a test may replay a date).
    func setClock(_ parameters: RequestParameters) async throws -> Response {
        guard let text = parameters["time"], let time = Self.time(text) else {
            throw ArcGISError.invalidParameter("time", "epoch milliseconds or an ISO 8601 date such as 2027-01-31T12:00:00Z.")
        }
        target.clock.set(milliseconds: time)
        return clockAnswer(parameters, done: await target.runHousekeeping())
    }

    /// The longest single move of the clock: ten years.
    static var maximumStep: Double { 10 * 366 * 86_400_000 }

    /// Epoch milliseconds (1970 to 9999) or an ISO 8601 date with a zone.
    static func time(_ text: String) -> Int64? {
        if let milliseconds = Int64(text) { return settableRange.contains(milliseconds) ? milliseconds : nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        var date = formatter.date(from: text)
        if date == nil {
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            date = formatter.date(from: text)
        }
        // A date is held to the milliseconds' range: a year before 1970 or after 9999 is refused.
        guard let seconds = date?.timeIntervalSince1970, seconds.isFinite, (0...Double(settableRange.upperBound) / 1000).contains(seconds)
        else { return nil }
        return Int64((seconds * 1000).rounded())
    }

    /// The times `clock/set` takes: 1970-01-01 to 9999-12-31T23:59:59Z, in milliseconds.
    static var settableRange: ClosedRange<Int64> { 0...253_402_300_799_000 }
}

/// Paths of the control API.
public enum TestTargetPaths {
    /// `/_outpost`: below the server's root, beside `/arcgis`.
    public static let root = "_outpost"

    /// Whether `path` (a request's) is the control API's.
    static func isControl(_ path: String) -> Bool { path == "/\(root)" || path.hasPrefix("/\(root)/") }
}
