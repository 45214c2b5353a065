import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// A page of a portal listing: `start` (1-based) and `num` (at most 100) in, `total`,
/// `start`, `num` (as asked, as portals answer: the ArcGIS API for Python counts pages by it)
/// and `nextStart` (-1 after the last page) out. A start below 1 (a client that followed a
/// `nextStart` of -1) is past the end.
struct Paging {
    let start: Int
    let num: Int
    let total: Int

    init(_ p: RequestParameters, total: Int, defaultNum: Int = 10) throws {
        start = try p.int("start") ?? 1
        num = min(max(0, try p.int("num") ?? defaultNum), 100)
        self.total = total
    }

    var range: Range<Int> {
        guard start >= 1 else { return total..<total }
        let lower = min(start - 1, total)
        return lower..<min(lower + num, total)
    }

    func answer(_ members: JSONObject) -> JSONValue {
        var object: JSONObject = [
            "total": .int(Int64(total)), "start": .int(Int64(start)), "num": .int(Int64(num)),
            "nextStart": .int(range.upperBound < total ? Int64(range.upperBound + 1) : -1),
        ]
        for (key, value) in members { object[key] = value }
        return .object(object)
    }
}

extension PortalController {
    /// Fields `sortField` may name.
    static var sortFields: [String] { ["title", "created", "modified", "type", "owner", "avgrating", "numviews", "size"] }

    /// `search`: the items the caller may see that match `q`, sorted and paged.
    func search(_ request: Request, _ c: OutpostRequestContext) throws -> Response {
        let p = c.form.parameters
        let text = p.string("q") ?? ""
        let query = try ItemSearch.parse(text)
        let caller = caller(c)
        var found = try allItems(request).filter { caller.maySee($0) && query.matches($0, organization: Self.organizationId) }
        if let field = p.string("sortField")?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased(), !field.isEmpty {
            guard Self.sortFields.contains(field) else {
                throw ArcGISError.invalidParameter("sortField", "one of \(Self.sortFields.joined(separator: ", "))")
            }
            let descending = p.string("sortOrder")?.lowercased() == "desc"
            found.sort { a, b in
                let ordered = Self.precedes(a, b, by: field)
                return descending ? Self.precedes(b, a, by: field) : ordered
            }
        }
        let page = try Paging(p, total: found.count)
        return RESTResponse.json(
            page.answer(["query": .string(text), "results": .array(found[page.range].map { answerJSON($0, request) })]), parameters: p)
    }

    static func precedes(_ a: PortalItem, _ b: PortalItem, by field: String) -> Bool {
        switch field {
        case "created": a.created < b.created
        case "modified": a.modified < b.modified
        case "type": a.type.localizedCaseInsensitiveCompare(b.type) == .orderedAscending
        case "owner": a.owner.localizedCaseInsensitiveCompare(b.owner) == .orderedAscending
        case "size": a.size < b.size
        case "title": a.title.localizedCaseInsensitiveCompare(b.title) == .orderedAscending
        default: a.id < b.id
        }
    }
}
