import Hummingbird
import OutpostWire

extension TestTargetController {
    /// `journal` (entries and the `last` seq to poll on from), `journal/count`, `journal/verify`
    /// (a pattern's count against `count`, `atLeast` or `atMost`), `journal/har` (HAR 1.2) and
    /// `journal/clear` (docs/testing-your-app.md, "Journal").
    func addJournalRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes
            .read("journal") { _, c in
                let p = c.form.parameters
                let (entries, last) = target.journal.entries(matching: try JournalQuery.parse(p))
                return RESTResponse.json(["entries": .array(entries.map(\.json)), "last": .int(last)], parameters: p)
            }
            .read("journal/count") { _, c in
                let p = c.form.parameters
                return RESTResponse.json(["count": .int(Int64(target.journal.count(matching: try JournalQuery.parse(p))))], parameters: p)
            }
            .change("journal/verify") { _, c in try verifyJournal(c.form.parameters) }
            .read("journal/har") { _, c in
                let p = c.form.parameters
                let (entries, _) = target.journal.entries(matching: try JournalQuery.parse(p))
                return RESTResponse.json(JournalEntry.har(entries), parameters: p)
            }
            .change("journal/clear") { _, c in
                target.journal.clear()
                return RESTResponse.json(["success": true, "last": .int(target.journal.lastSeq)], parameters: c.form.parameters)
            }
    }

    /// `journal/verify`: how many entries match `pattern`, and whether that is `count`
    /// exactly, at least `atLeast` or at most `atMost` (one of the three).
    func verifyJournal(_ p: RequestParameters) throws -> Response {
        let query = try JournalQuery.parse(pattern: p["pattern"])
        let bounds = ["count", "atLeast", "atMost"].compactMap { name in p.string(name).map { (name, $0) } }
        guard bounds.count == 1, let (name, text) = bounds.first else {
            throw ArcGISError.invalidParameter("count", "give one of count, atLeast or atMost.")
        }
        guard let bound = Int(text), bound >= 0 else { throw ArcGISError.invalidParameter(name, "an integer, 0 or more.") }
        let matched = target.journal.count(matching: query)
        let success =
            switch name {
            case "count": matched == bound
            case "atLeast": matched >= bound
            default: matched <= bound
            }
        return RESTResponse.json(["matched": .int(Int64(matched)), "success": .bool(success)], parameters: p)
    }
}
