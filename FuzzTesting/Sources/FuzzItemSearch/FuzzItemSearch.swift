import FuzzCommon
import OutpostWire

// Portal search queries (`search?q=`): ItemSearch.parse, then matching against an item.
// Oracles beyond no crash: matching is deterministic, `NOT q` matches exactly when `q` does
// not, and `q OR q` / `q AND q` match as `q` does.

private let item = PortalItem(
    id: "9f3c2a4b5d6e7f8091a2b3c4d5e6f708", owner: "alice", title: "Street Trees of Springfield", type: "Feature Service",
    access: .org, created: 1_700_000_000_000, typeKeywords: ["ArcGIS Server", "Data", "Feature Access", "Service", "Offline"],
    tags: ["trees", "urban forestry", "inventory"], snippet: "Every street tree the city plants",
    description: "<p>Inventory of street trees, updated nightly.</p>", url: "https://example.com/arcgis/rest/services/Trees/FeatureServer",
    name: "trees.geojson", size: 4_096)
private let organization = "0123456789ABCDEF"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = FuzzInput(start, count).text
    guard let query = try? ItemSearch.parse(text) else { return 0 }
    let matches = query.matches(item, organization: organization)
    fuzzCheck(query.matches(item, organization: organization) == matches, "matching \(text) is not deterministic")
    fuzzCheck(ItemSearch.not(query).matches(item, organization: organization) == !matches, "NOT (\(text)) does not negate it")
    fuzzCheck(ItemSearch.or(query, query).matches(item, organization: organization) == matches, "\(text) OR itself differs")
    fuzzCheck(ItemSearch.and(query, query).matches(item, organization: organization) == matches, "\(text) AND itself differs")
    // Parenthesised, the same query parses when it is not at the depth limit.
    if let grouped = try? ItemSearch.parse("(\(text))") {
        fuzzCheck(grouped.matches(item, organization: organization) == matches, "(\(text)) matches differently from \(text)")
    }
    return 0
}

@main
enum FuzzItemSearchMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
