import Foundation
import OutpostWire
import Testing

@testable import OutpostServer

/// The request journal's pure parts (docs/testing-your-app.md, "Journal"): the bounded ring,
/// the filters, masking, truncation and the HAR export's shape.
@Suite struct RequestJournalTests {
    static func entry(
        _ operation: String = "query", service: String? = "Demo", method: String = "GET", status: Int = 200, errorCode: Int? = nil,
        parameters: [(String, String)] = [("f", "json")]
    ) -> JournalEntry {
        var entry = JournalEntry(
            time: 1_800_000_000_000, method: method, path: "/arcgis/rest/services/Demo/FeatureServer/0/\(operation)", operation: operation,
            service: service, layer: 0, status: status, durationMs: 1.5)
        entry.errorCode = errorCode
        entry.parameters = JournalParameter.masked(RequestParameters(parameters))
        return entry
    }

    @Test func theRingKeepsTheNewestCapacityEntriesNumberedFromOne() {
        let journal = RequestJournal(capacity: 3)
        for _ in 0..<5 { journal.record(Self.entry()) }
        let (entries, last) = journal.entries(matching: JournalQuery())
        #expect(entries.map(\.seq) == [3, 4, 5])
        #expect(last == 5)
        #expect(journal.usage.count == 3)
        journal.clear()
        #expect(journal.entries(matching: JournalQuery()).entries.isEmpty)
        // Numbering goes on after a clear: a poller's `since` stays valid.
        #expect(journal.record(Self.entry()) == 6)
    }

    @Test func theByteBudgetDropsTheOldestToo() {
        let journal = RequestJournal(capacity: 1000, maximumBytes: 50_000)
        let big = String(repeating: "x", count: 100_000)
        for _ in 0..<100 { journal.record(Self.entry("applyEdits", parameters: [("edits", big)])) }
        let usage = journal.usage
        #expect(usage.bytes <= 50_000)
        #expect(usage.count >= 5 && usage.count < 100)
        #expect(journal.entries(matching: JournalQuery()).entries.last?.seq == 100)
    }

    @Test func filtersSinceAndLimit() throws {
        let journal = RequestJournal(capacity: 100)
        journal.record(Self.entry("query"))
        journal.record(Self.entry("applyEdits", method: "POST", errorCode: 400))
        journal.record(Self.entry("query", service: "Other"))
        journal.record(Self.entry("synchronizeReplica", method: "POST", status: 413))
        func seqs(_ pairs: [(String, String)]) throws -> [Int64] {
            journal.entries(matching: try JournalQuery.parse(RequestParameters(pairs))).entries.map(\.seq)
        }
        #expect(try seqs([("operation", "query")]) == [1, 3])
        #expect(try seqs([("operation", "QUERY"), ("service", "demo")]) == [1])
        #expect(try seqs([("method", "post")]) == [2, 4])
        #expect(try seqs([("errorCode", "400")]) == [2])
        #expect(try seqs([("status", "413")]) == [4])
        #expect(try seqs([("since", "2")]) == [3, 4])
        #expect(try seqs([("since", "1"), ("limit", "2")]) == [2, 3])
        // Without `since`, `limit` keeps the newest.
        #expect(try seqs([("limit", "1")]) == [4])
        // Paging: `last` is where the next page starts.
        let page = journal.entries(matching: try JournalQuery.parse(RequestParameters([("since", "0"), ("limit", "3")])))
        #expect(page.last == 3)
        #expect(journal.count(matching: try JournalQuery.parse(RequestParameters([("operation", "query")]))) == 2)
    }

    @Test(arguments: [
        ("limit", "10001"), ("limit", "0"), ("limit", "ten"), ("since", "-1"), ("status", "99"), ("errorCode", "x"),
        ("operation", String(repeating: "q", count: 2000)),
    ])
    func badFiltersAre400sNamingThem(_ name: String, _ value: String) {
        let error = #expect(throws: ArcGISError.self) { try JournalQuery.parse(RequestParameters([(name, value)])) }
        #expect(error?.code == 400)
        #expect(error?.details.joined().contains(name) == true || error?.message.contains(name) == true)
    }

    @Test func aVerifyPatternMatchesParametersAsKept() throws {
        let query = try JournalQuery.parse(pattern: #"{"operation":"applyEdits","parameters":{"f":"json","rollbackOnFailure":true}}"#)
        #expect(query.operation == "applyEdits")
        #expect(query.matches(Self.entry("applyEdits", parameters: [("f", "json"), ("rollbackOnFailure", "true")])))
        #expect(!query.matches(Self.entry("applyEdits", parameters: [("f", "json")])))
        #expect(!query.matches(Self.entry("query", parameters: [("f", "json"), ("rollbackOnFailure", "true")])))
        for bad in [nil, "[]", "{", #"{"colour":"red"}"#, #"{"status":"ok"}"#] {
            #expect(throws: ArcGISError.self) { try JournalQuery.parse(pattern: bad) }
        }
    }

    @Test func secretsAreMaskedByNameAndHeader() {
        let given: [(String, String)] = [
            ("token", "t1"), ("password", "p"), ("client_secret", "s"), ("refresh_token", "r"), ("code", "c"), ("code_verifier", "v"),
            ("apiKey", "k"), ("api_key", "k2"), ("new_password", "p2"), ("mySecretThing", "s2"), ("access_token", "a"), ("f", "json"),
            ("where", "1=1"),
        ]
        let kept = Dictionary(uniqueKeysWithValues: JournalParameter.masked(RequestParameters(given)).map { ($0.name, $0.value) })
        for (name, _) in given where !["f", "where"].contains(name) { #expect(kept[name.lowercased()] == "***", "\(name)") }
        #expect(kept["f"] == "json")
        #expect(kept["where"] == "1=1")
        let headers = JournalParameter.masked(headers: [
            ("Authorization", "Bearer x"), ("X-Esri-Authorization", "Bearer y"), ("Cookie", "a=b"), ("Accept", "*/*"),
        ])
        #expect(headers.map(\.value) == ["***", "***", "***", "*/*"])
    }

    @Test func credentialHeadersAreMaskedByNameAndByAPartOfIt() {
        let given = [
            "Proxy-Authorization", "Set-Cookie", "X-API-Key", "X-Auth-Token", "X-Client-Secret", "My-Api-Key", "X-Apikey", "WWW-Authenticate",
        ]
        let headers = JournalParameter.masked(headers: given.map { ($0, "credential-47") })
        #expect(headers.map(\.value) == Array(repeating: "***", count: given.count))
        let kept = JournalParameter.masked(headers: [("Accept", "*/*"), ("Content-Type", "text/plain"), ("User-Agent", "app/1")])
        #expect(kept.map(\.value) == ["*/*", "text/plain", "app/1"])
    }

    @Test(arguments: [
        ("https://app.example/map.html?token=T47&x=1", "https://app.example/map.html?token=***&x=1"),
        ("https://app.example/cb?code=C47&state=s", "https://app.example/cb?code=***&state=s"),
        ("https://app.example/cb#access_token=A47&expires_in=7200", "https://app.example/cb#access_token=***&expires_in=7200"),
        ("https://a.example/p?access%5Ftoken=A47&f=json#refresh_token=R47", "https://a.example/p?access%5Ftoken=***&f=json#refresh_token=***"),
        ("https://app.example/a?b=1#frag", "https://app.example/a?b=1#frag"),
        ("/relative?password=P47", "/relative?password=***"),
        ("https://app.example/", "https://app.example/"),
    ])
    func urlHeadersKeepTheirURLWithSecretParametersMasked(_ url: String, _ expected: String) {
        #expect(JournalParameter.maskingSecrets(inURL: url) == expected)
        for name in ["Referer", "Location", "Content-Location"] {
            #expect(JournalParameter.masked(headers: [(name, url)]).first?.value == expected, "\(name)")
        }
        // Any other header's value is kept as written.
        #expect(JournalParameter.masked(headers: [("Link", url)]).first?.value == url)
    }

    @Test func longValuesAreCutTo4KiBOnACharacterAndSaySo() {
        let long = String(repeating: "é", count: 5000)  // 10,000 bytes
        let kept = JournalParameter(name: "edits", keeping: long, secret: false)
        #expect(kept.value.utf8.count <= JournalParameter.maximumBytes)
        #expect(kept.value.utf8.count > JournalParameter.maximumBytes - 8)
        #expect(long.hasPrefix(kept.value))
        #expect(kept.truncatedFrom == 10_000)
        var entry = Self.entry("applyEdits")
        entry.parameters = [kept]
        #expect(entry.json["truncated"]?["edits"] == 10_000)
        #expect(JournalParameter(name: "f", keeping: "json", secret: false).truncatedFrom == nil)
    }

    /// HAR 1.2's required fields (log, creator, entries; request, response, cache, timings).
    static func checkHAR(_ har: JSONValue) {
        #expect(har["log"]?["version"] == "1.2")
        #expect(har["log"]?["creator"]?["name"]?.stringValue?.isEmpty == false)
        #expect(har["log"]?["creator"]?["version"]?.stringValue?.isEmpty == false)
        let entries = har["log"]?["entries"]?.arrayValue ?? []
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for entry in entries {
            #expect(iso.date(from: entry["startedDateTime"]?.stringValue ?? "") != nil)
            #expect(entry["time"]?.doubleValue != nil)
            #expect(entry["cache"]?.objectValue != nil)
            for field in ["send", "wait", "receive"] { #expect(entry["timings"]?[field]?.doubleValue != nil, "\(field)") }
            let request = entry["request"]
            for field in ["method", "url", "httpVersion"] { #expect(request?[field]?.stringValue != nil, "\(field)") }
            for field in ["cookies", "headers", "queryString"] { #expect(request?[field]?.arrayValue != nil, "\(field)") }
            for field in ["headersSize", "bodySize"] { #expect(request?[field]?.int64Value != nil, "\(field)") }
            if let post = request?["postData"] {
                #expect(post["mimeType"]?.stringValue != nil)
                #expect(post["params"]?.arrayValue != nil)
            }
            let response = entry["response"]
            #expect(response?["status"]?.int64Value != nil)
            for field in ["statusText", "httpVersion", "redirectURL"] { #expect(response?[field]?.stringValue != nil, "\(field)") }
            for field in ["cookies", "headers"] { #expect(response?[field]?.arrayValue != nil, "\(field)") }
            #expect(response?["content"]?["size"]?.int64Value != nil)
            #expect(response?["content"]?["mimeType"]?.stringValue != nil)
            for field in ["headersSize", "bodySize"] { #expect(response?[field]?.int64Value != nil, "\(field)") }
        }
    }

    @Test func harHasTheRequiredFieldsAndMasks() {
        var entry = Self.entry("applyEdits", method: "POST", parameters: [("f", "json"), ("token", "secret-token")])
        entry.url = "http://localhost/arcgis/rest/services/Demo/FeatureServer/0/applyEdits?f=json"
        entry.query = JournalParameter.masked(pairs: [("f", "json")])
        entry.requestHeaders = JournalParameter.masked(headers: [
            ("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", "Bearer z"),
        ])
        entry.responseHeaders = JournalParameter.masked(headers: [("Content-Type", "application/json")])
        entry.responseBytes = 42
        let har = JournalEntry.har([entry, Self.entry()])
        Self.checkHAR(har)
        #expect(har["log"]?["entries"]?.arrayValue?.count == 2)
        let first = har["log"]?["entries"]?[0]
        #expect(first?["startedDateTime"] == "2027-01-15T08:00:00.000Z")
        #expect(first?["response"]?["content"]?["size"] == 42)
        #expect(first?["response"]?["statusText"] == "OK")
        #expect(first?["request"]?["postData"]?["params"]?.arrayValue?.contains(["name": "token", "value": "***"]) == true)
        #expect(!har.jsonText.contains("secret-token"))
        #expect(!har.jsonText.contains("Bearer z"))
    }

    @Test func theClassifierNamesOperationServiceAndLayer() {
        let cases: [(String, RequestPath)] = [
            ("/arcgis/rest/services/Demo/FeatureServer/0/query", RequestPath(operation: "query", service: "Demo", layer: 0)),
            ("/arcgis/rest/services/Parks/Trees/FeatureServer/2/applyEdits", RequestPath(operation: "applyEdits", service: "Parks/Trees", layer: 2)),
            ("/arcgis/rest/services/Demo/FeatureServer/synchronizeReplica", RequestPath(operation: "synchronizeReplica", service: "Demo")),
            ("/arcgis/rest/services/Demo/FeatureServer/jobs/abc", RequestPath(operation: "jobStatus", service: "Demo")),
            ("/arcgis/sharing/rest/content/items/x", RequestPath(operation: "portal")),
            ("/arcgis/tokens/generateToken", RequestPath(operation: "generateToken")),
        ]
        for (path, expected) in cases { #expect(RequestPath(path) == expected, "\(path)") }
    }
}
