import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OutpostGeoPackage
import OutpostSpatiaLite
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// One test per finding of the hardening issue: each failed before its fix.
@Suite struct HardeningTests {
    /// Token security with an admin, an editor and a viewer (few hash rounds: same function, cheaper).
    static func withSecuredApp(
        options: ServerOptions = ServerOptions(requireAuth: true), clock: any WallClock = SystemClock(),
        _ body: @Sendable (any TestClientProtocol, SpatiaLiteBackend, [String: String]) async throws -> Void
    ) async throws {
        try await withFreshDemoApp(options: options, clock: clock) { client, store in
            var tokens: [String: String] = [:]
            for (name, role) in [("ada", UserRole.admin), ("eve", .editor), ("vic", .viewer)] {
                try store.users.addUser(name, role: role, password: "\(name)-password", rounds: 1000)
                tokens[name] = try store.users.issueToken(for: ServerUser(name: name, role: role), minutes: 30).token
            }
            try await body(client, store, tokens)
        }
    }

    @Test func aWhereOf90ORsIsAnsweredAndDatabaseErrorsShowNoSQL() async throws {
        try await withFreshDemoApp { client, store in
            let ors = (1...90).map { "OBJECTID = \($0)" }.joined(separator: " OR ")
            let answer = try await post(client, "\(layerURL)/query", [("f", "json"), ("where", ors), ("returnCountOnly", "true")])
            #expect(answer["count"] == 90, "\(answer)")
            let refused = try await post(
                client, "\(layerURL)/query",
                [("f", "json"), ("where", (1..<70).map { "OBJECTID = \($0) OR (" }.joined() + "OBJECTID = 0" + String(repeating: ")", count: 69))])
            #expect(refused["error"]?["code"] == 400)
            #expect(refused["error"]?["details"]?[0]?.stringValue?.contains("nested too deeply") == true, "\(refused)")
            // An error SQLite raises while running (ABS of the smallest integer; an ESCAPE of two
            // characters was one before it became a 400) names no SQL and no table.
            let tableName = try store.layer(service: "Demo", id: 2).tableName
            try await client.execute(
                uri: "\(layerURL)/query", method: .post, headers: formHeaders,
                body: form([("f", "json"), ("where", "ABS(-9223372036854775807 - 1) = OBJECTID")])
            ) { response in
                let text = String(buffer: response.body)
                #expect(text.contains("\"error\""), "\(text)")
                #expect(!text.contains("SELECT") && !text.contains(tableName) && !text.lowercased().contains("overflow"), "\(text)")
            }
        }
    }

    /// Issue 43 (found by test_cpu_bounds.py): a `where` of 64 KiB of `OR`s (about 4,000
    /// operands) failed with SQLite error 1, its flat chain a tree deeper than SQLite's 1,000
    /// levels. Chains go in parenthesised runs: answered, with the same rows.
    @Test(arguments: ["OR", "AND"]) func aWhereOf64KiBOfOneOperatorIsAnswered(_ op: String) async throws {
        try await withFreshDemoApp { client, _ in
            let terms = (1...4_000).map { op == "OR" ? "OBJECTID = \($0)" : "OBJECTID <> \($0 + 2_000)" }
            let clause = String(terms.joined(separator: " \(op) ").prefix(65_000).split(separator: " \(op) ").dropLast().joined(separator: " \(op) "))
            let count = clause.components(separatedBy: " \(op) ").count
            #expect(count > 2_500)
            let answer = try await post(client, "\(layerURL)/query", [("f", "json"), ("where", clause), ("returnCountOnly", "true")])
            #expect(answer["count"]?.int64Value == Int64(op == "OR" ? min(count, 2_500) : 2_000), "\(answer)")
            // A LIKE pattern past SQLite's 50,000 bytes was a 500 too: now a 400 naming it.
            let like = try await post(
                client, "\(layerURL)/query", [("f", "json"), ("where", "species LIKE '" + String(repeating: "%a", count: 30_000) + "'")])
            #expect(like["error"]?["code"] == 400 && like["error"]?["details"]?[0]?.stringValue?.contains("LIKE pattern") == true, "\(like)")
        }
    }

    /// For each way of nesting, the deepest clause the compiler takes is answered by a query
    /// and by a replica filter (embedded in a `CASE WHEN` on download); one level more is
    /// refused by the compiler: SQLite's parser never overflows.
    @Test(arguments: [
        ("OBJECTID = 1 OR (", ")", "OBJECTID = 0"), ("OBJECTID BETWEEN 0 AND (", ")", "5000"), ("NOT (", ")", "OBJECTID = 0"),
        ("ABS(", ")", "OBJECTID"), ("CAST(", " AS INTEGER)", "OBJECTID"), ("-(", ")", "OBJECTID"), ("OBJECTID IN (1, (", "))", "OBJECTID = 0"),
        ("CONCAT('a', ", ")", "species"),
    ])
    func theDeepestClauseTheCompilerTakesRunsInQueriesAndReplicaFilters(open: String, close: String, inner: String) async throws {
        try await withFreshDemoApp { client, _ in
            func clause(_ depth: Int) -> String {
                let body = String(repeating: open, count: depth) + inner + String(repeating: close, count: depth)
                return inner == "OBJECTID = 0" ? body : "(\(body)) IS NOT NULL"
            }
            var deepest = 0
            for depth in 1...80 {
                let answer = try await post(client, "\(layerURL)/query", [("f", "json"), ("where", clause(depth)), ("returnCountOnly", "true")])
                if let error = answer["error"] {
                    #expect(error["details"]?[0]?.stringValue?.contains("nested too deeply") == true, "\(depth): \(answer)")
                    break
                }
                #expect(answer["count"] != nil, "\(depth): \(answer)")
                deepest = depth
            }
            #expect(deepest >= 8 && deepest < 80, "\(open): \(deepest)")
            let filter = #"{"2":{"queryOption":"useFilter","where":"\#(clause(deepest))"}}"#
            let created = try await createTreeReplica(client, name: "deep", extra: [("layerQueries", filter)])
            let id = try #require(created["replicaID"]?.stringValue, "\(created)")
            let synced = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", id), ("transportType", "esriTransportTypeEmbedded"),
                    ("syncLayers", #"[{"id":2,"serverGen":0,"syncDirection":"download"}]"#),
                ])
            #expect(synced["error"] == nil, "\(synced)")
        }
    }

    @Test func groupedStatisticsAnswerOneRowPerGroupWithHavingAndOrder() async throws {
        try await withFreshDemoApp { client, _ in
            let countries = "/arcgis/rest/services/Demo/FeatureServer/1"
            let layer = try await get(client, "\(countries)?f=json")
            #expect(layer["supportsStatistics"] == true && layer["advancedQueryCapabilities"]?["supportsHavingClause"] == true)
            // The expected figures, computed here from the plain rows.
            let rows = try await get(client, "\(countries)/query?where=1%3D1&outFields=continent,pop_est&returnGeometry=false&f=json")
            var byContinent: [String: [Double]] = [:]
            for feature in rows["features"]?.arrayValue ?? [] {
                let continent = feature["attributes"]?["continent"]?.stringValue ?? ""
                byContinent[continent, default: []].append(feature["attributes"]?["pop_est"]?.doubleValue ?? 0)
            }
            #expect(byContinent.count > 5)
            let statistics =
                #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"},"#
                + #"{"statisticType":"sum","onStatisticField":"pop_est","outStatisticFieldName":"total"},"#
                + #"{"statisticType":"min","onStatisticField":"pop_est","outStatisticFieldName":"least"},"#
                + #"{"statisticType":"max","onStatisticField":"pop_est","outStatisticFieldName":"most"},"#
                + #"{"statisticType":"avg","onStatisticField":"pop_est","outStatisticFieldName":"mean"},"#
                + #"{"statisticType":"stddev","onStatisticField":"pop_est","outStatisticFieldName":"sd"},"#
                + #"{"statisticType":"var","onStatisticField":"pop_est","outStatisticFieldName":"variance"}]"#
            let answer = try await post(
                client, "\(countries)/query",
                [
                    ("f", "json"), ("where", "1=1"), ("outStatistics", statistics), ("groupByFieldsForStatistics", "continent"),
                    ("having", "COUNT(OBJECTID) > 1"), ("orderByFields", "n DESC, continent"),
                ])
            let features = try #require(answer["features"]?.arrayValue, "\(answer)")
            let expected = byContinent.filter { $0.value.count > 1 }.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }
            #expect(features.map { $0["attributes"]?["continent"]?.stringValue ?? "" } == expected.map(\.key))
            for (feature, (continent, values)) in zip(features, expected) {
                let attributes = try #require(feature["attributes"])
                let mean = values.reduce(0, +) / Double(values.count)
                let variance = values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)
                #expect(attributes["n"]?.int64Value == Int64(values.count), "\(continent)")
                #expect(attributes["total"]?.doubleValue == values.reduce(0, +))
                #expect(attributes["least"]?.doubleValue == values.min() && attributes["most"]?.doubleValue == values.max())
                #expect(abs((attributes["mean"]?.doubleValue ?? 0) - mean) <= 1e-6 * mean)
                #expect(abs((attributes["variance"]?.doubleValue ?? 0) - variance) <= 1e-9 * variance)
                #expect(abs((attributes["sd"]?.doubleValue ?? 0) - variance.squareRoot()) <= 1e-9 * variance.squareRoot())
            }
            #expect(
                answer["fields"]?.arrayValue?.map { $0["name"]?.stringValue ?? "" } == [
                    "continent", "n", "total", "least", "most", "mean", "sd", "variance",
                ])
            // Without grouping: one row; bad requests: clear errors.
            let one = try await post(
                client, "\(countries)/query",
                [("f", "json"), ("outStatistics", #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"}]"#)])
            #expect(
                one["features"]?.arrayValue?.count == 1
                    && one["features"]?[0]?["attributes"]?["n"]?.int64Value == Int64(byContinent.values.map(\.count).reduce(0, +)))
            for bad in [
                [("groupByFieldsForStatistics", "continent")], [("outStatistics", statistics), ("groupByFieldsForStatistics", "nope")],
                [("outStatistics", statistics), ("having", "SUM(SUM(pop_est)) > 1")], [("outStatistics", statistics), ("orderByFields", "pop_est")],
                [("outStatistics", #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n; DROP"}]"#)],
            ] {
                #expect(try await post(client, "\(countries)/query", [("f", "json")] + bad)["error"]?["code"] == 400, "\(bad)")
            }
        }
    }

    @Test func theSeedsRegistrationRulesAreKept() async throws {
        try await withFreshDemoApp { client, _ in
            func register(_ referenceId: String, service: String = serviceURL, layers: String = "2") async throws -> JSONValue {
                try await post(
                    client, "\(service)/createReplica",
                    [
                        ("f", "json"), ("layers", layers), ("replicaName", "copy"), ("transportType", "esriTransportTypeEmbedded"),
                        ("replicaOptions", #"{"registerExistingData":true,"refReplicaId":"\#(referenceId)","replicaServerGen":1}"#),
                    ])
            }
            let original = try #require(try await createTreeReplica(client, name: "original")["replicaID"]?.stringValue)
            let copy = try #require(try await register(original)["replicaID"]?.stringValue)
            let lone = try #require(try await createTreeReplica(client, name: "lone")["replicaID"]?.stringValue)
            // A reference the server never knew (another server's lineage) registers from the generations sent.
            #expect(try await register("{12345678-1234-1234-1234-123456789012}")["replicaID"] != nil)
            // The unregistered file itself, or a copy of it, cannot register.
            #expect(try await post(client, "\(serviceURL)/unRegisterReplica", [("f", "json"), ("replicaID", lone)])["success"] == true)
            let again = try await register(lone)
            #expect(again["error"]?["code"] == 400 && again["replicaID"] == nil)
            #expect(again["error"]?["details"]?[0]?.stringValue?.contains("cannot be registered again") == true, "\(again)")
            // Once the original is unregistered, no copy of it registers: not from it, nor from a copy of it.
            #expect(try await post(client, "\(serviceURL)/unRegisterReplica", [("f", "json"), ("replicaID", original)])["success"] == true)
            for reference in [original, copy] {
                let refused = try await register(reference)
                #expect(refused["error"]?["code"] == 400, "\(refused)")
                #expect(refused["error"]?["details"]?[0]?.stringValue?.contains("unregistered") == true)
            }
            // The copy registered before still syncs.
            let info = try await get(client, "\(serviceURL)/replicas/\(copy)?f=json")
            #expect(info["replicaID"]?.stringValue == copy)
            // Not on a versioned service, which says so.
            let parcels = "/arcgis/rest/services/Parcels/FeatureServer"
            #expect(try await get(client, "\(parcels)?f=json")["syncCapabilities"]?["supportsRegisteringExistingData"] == false)
            let parcelsReplica = try await post(
                client, "\(parcels)/createReplica",
                [
                    ("f", "json"), ("layers", "0"), ("replicaName", "p"), ("transportType", "esriTransportTypeEmbedded"), ("syncModel", "perReplica"),
                ])
            let versioned = try await register(
                try #require(parcelsReplica["replicaID"]?.stringValue, "\(parcelsReplica)"), service: parcels, layers: "0")
            #expect(versioned["error"]?["details"]?[0]?.stringValue?.contains("versioned") == true, "\(versioned)")
        }
    }

    @Test func replicasMadeWithoutAUserBelongToTheAdministrators() async throws {
        let store = try makeDemoStore(label: "owners")
        // Before token security: an anonymous replica, synced asynchronously (a job and a result file).
        let (replicaId, jobPath) = try await Application(router: buildRouter(store: store)).test(.router) { client in
            let created = try await createTreeReplica(client, name: "anonymous")
            let id = try #require(created["replicaID"]?.stringValue)
            let job = try await post(
                client, "\(serviceURL)/synchronizeReplica",
                [
                    ("f", "json"), ("replicaID", id), ("async", "true"),
                    ("syncLayers", #"[{"id":2,"serverGen":\#(try #require(created["layerServerGens"]?[0]?["serverGen"]?.int64Value))}]"#),
                ])
            let jobPath = path(of: try #require(job["statusUrl"]?.stringValue))
            // Finished before the server "restarts" with token security (a job still running
            // then would be failed by the start-up housekeeping).
            for _ in 0..<600 where try await get(client, "\(jobPath)?f=json")["status"] != "Completed" {
                try await Task.sleep(for: .milliseconds(50))
            }
            return (id, jobPath)
        }
        for (name, role) in [("ada", UserRole.admin), ("vic", .viewer), ("eve", .editor)] {
            try store.users.addUser(name, role: role, password: "\(name)-password", rounds: 1000)
        }
        let ada = try store.users.issueToken(for: ServerUser(name: "ada", role: .admin), minutes: 30).token
        let vic = try store.users.issueToken(for: ServerUser(name: "vic", role: .viewer), minutes: 30).token
        let eve = try store.users.issueToken(for: ServerUser(name: "eve", role: .editor), minutes: 30).token
        try await Application(router: buildRouter(store: store, options: ServerOptions(requireAuth: true))).test(.router) { client in
            // Wait for the job, as the admin.
            var status = JSONValue.null
            for _ in 0..<100 {
                status = try await get(client, "\(jobPath)?f=json&token=\(ada)")
                if status["status"] == "Completed" { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            let resultPath = path(of: try #require(status["resultUrl"]?.stringValue, "\(status)"))
            for other in [vic, eve] {
                #expect(try await get(client, "\(serviceURL)/replicas/\(replicaId)?f=json&token=\(other)")["error"]?["code"] == 404)
                #expect(try await get(client, "\(serviceURL)/replicas?f=json&token=\(other)").arrayValue?.isEmpty == true)
                #expect(try await get(client, "\(serviceURL)/replicas/\(replicaId)/conflicts?f=json&token=\(other)")["error"]?["code"] == 404)
                #expect(try await get(client, "\(jobPath)?f=json&token=\(other)")["error"]?["code"] == 403)
                #expect(try await get(client, "\(resultPath)?token=\(other)")["error"]?["code"] == 404)
                let sync = try await post(
                    client, "\(serviceURL)/synchronizeReplica",
                    [
                        ("f", "json"), ("token", other), ("replicaID", replicaId), ("syncLayers", #"[{"id":2,"serverGen":1}]"#),
                        ("edits", #"[{"id":2,"features":{"adds":[\#(tree("{00000000-0000-0000-0000-00000000BB01}", height: 1))]}}]"#),
                    ])
                #expect(sync["error"]?["code"] == 403, "\(sync)")
                _ = try await post(client, "\(serviceURL)/unRegisterReplica", [("f", "json"), ("token", other), ("replicaID", "*")])
                #expect(try store.replicas.replica(service: "Demo", id: replicaId) != nil)
            }
            #expect(try await get(client, "\(serviceURL)/replicas?f=json&token=\(ada)").arrayValue?.count == 1)
            #expect(try await get(client, "\(resultPath)?token=\(ada)")["error"] == nil)
            #expect(
                try await post(client, "\(serviceURL)/unRegisterReplica", [("f", "json"), ("token", ada), ("replicaID", replicaId)])["success"]
                    == true)
        }
        try? FileManager.default.removeItem(atPath: store.directory)
    }

    @Test func bodiesOfCallersWithoutATokenAreNotRead() async throws {
        try await Self.withSecuredApp { client, store, tokens in
            let temporary = store.temporaryDirectory
            func spooled() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: temporary).count) ?? 0 }
            let bytes = [UInt8](repeating: 0x41, count: 256 * 1024)
            // A file part before any token: refused at the part, nothing spooled.
            var (headers, body) = multipart(fields: [("f", "json")], file: ("file", "big.bin", "application/octet-stream", bytes))
            try await client.execute(uri: "\(serviceURL)/uploads/upload", method: .post, headers: headers, body: body) { response in
                #expect(json(response)["error"]?["code"] == 499)
                #expect(response.headers[.connection] == "close")
            }
            #expect(spooled() == 0)
            // A token field first is read, and admits the file.
            (headers, body) = multipart(
                fields: [("f", "json"), ("token", tokens["eve"]!)], file: ("file", "ok.bin", "application/octet-stream", bytes))
            try await client.execute(uri: "\(serviceURL)/uploads/upload", method: .post, headers: headers, body: body) { response in
                #expect(json(response)["item"]?["itemID"] != nil, "\(json(response))")
            }
            // A form past the 64 KiB preamble without a token: refused; with the token early: read.
            let filler = String(repeating: "x", count: 100 * 1024)
            #expect(try await post(client, "\(layerURL)/query", [("f", "json"), ("junk", filler), ("where", "1=1")])["error"]?["code"] == 499)
            let early = try await post(
                client, "\(layerURL)/query",
                [("token", tokens["vic"]!), ("f", "json"), ("junk", filler), ("where", "1=1"), ("returnCountOnly", "true")])
            #expect(early["count"] == 2500, "\(early)")
            // Routes open to anyone (the token service, rest/info) take small forms only.
            let big = [("f", "json"), ("username", "eve"), ("password", String(repeating: "p", count: 100 * 1024))]
            try await client.execute(uri: "/arcgis/tokens/generateToken", method: .post, headers: formHeaders, body: form(big)) { response in
                #expect(response.status == .contentTooLarge && json(response)["error"]?["code"] == 413)
            }
            // A viewer's token in the header decides before the body: an edit is refused as 403.
            var bearer = formHeaders
            bearer[.authorization] = "Bearer \(tokens["vic"]!)"
            try await client.execute(
                uri: "\(layerURL)/applyEdits", method: .post, headers: bearer,
                body: form([("f", "json"), ("adds", "[]")])
            ) { response in
                #expect(json(response)["error"]?["code"] == 403)
            }
        }
    }

    @Test func withoutTokenSecurityABodyTokenStillNamesTheCaller() async throws {
        try await withFreshDemoApp { client, store in
            try store.users.addUser("eve", role: .editor, password: "eve-password", rounds: 1000)
            let eve = try store.users.issueToken(for: ServerUser(name: "eve", role: .editor), minutes: 30).token
            let named = try await createTreeReplica(client, name: "named", extra: [("token", eve)])
            #expect(try store.replicas.replica(service: "Demo", id: try #require(named["replicaID"]?.stringValue))?.owner == "eve")
            // An unknown token is ignored, as no token is: anonymous.
            let anonymous = try await createTreeReplica(client, name: "anonymous", extra: [("token", "not-a-token")])
            #expect(try store.replicas.replica(service: "Demo", id: try #require(anonymous["replicaID"]?.stringValue))?.owner == "")
        }
    }

    @Test func aBodyAnnouncedOverTheLimitIsRefusedWith413() async throws {
        try await withFreshDemoApp(options: ServerOptions(limits: UploadLimits(maxBodyBytes: 1024))) { client, _ in
            let big = [("f", "json"), ("adds", String(repeating: " ", count: 4096))]
            try await client.execute(uri: "\(layerURL)/applyEdits", method: .post, headers: formHeaders, body: form(big)) { response in
                #expect(response.status == .contentTooLarge)
                #expect(response.headers[.connection] == "close")
                #expect(json(response)["error"]?["code"] == 413)
            }
        }
    }

    /// Each 413 names the limit it applied: a urlencoded body is all fields, so its limit is a
    /// field's, not the (larger) body's.
    @Test func aRefusedBodyIsToldTheLimitItPassed() async throws {
        try await withFreshDemoApp(options: ServerOptions(limits: UploadLimits(maxBodyBytes: 1 << 20, maxFieldBytes: 2048))) { client, _ in
            let big = [("f", "json"), ("adds", String(repeating: " ", count: 4096))]
            try await client.execute(uri: "\(layerURL)/applyEdits", method: .post, headers: formHeaders, body: form(big)) { response in
                let details = json(response)["error"]?["details"]?[0]?.stringValue ?? ""
                #expect(response.status == .contentTooLarge && details.contains("limit of 2048 bytes"), "\(details)")
            }
            let (headers, body) = multipart(fields: [("f", "json"), ("adds", String(repeating: " ", count: 4096))], file: nil)
            try await client.execute(uri: "\(layerURL)/applyEdits", method: .post, headers: headers, body: body) { response in
                let details = json(response)["error"]?["details"]?[0]?.stringValue ?? ""
                #expect(response.status == .contentTooLarge && details.contains("A form field exceeds the limit of 2048 bytes"), "\(details)")
            }
        }
    }

    @Test func htmlPagesCarrySecurityHeadersAndStateChangesRefuseGETUnderTokenSecurity() async throws {
        try await Self.withSecuredApp { client, _, tokens in
            let ada = tokens["ada"]!
            try await client.execute(uri: "\(serviceURL)?f=html&token=\(ada)", method: .get) { response in
                #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
                #expect(response.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
                #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
            }
            let created = try await createTreeReplica(client, name: "kept", extra: [("token", ada)])
            let id = try #require(created["replicaID"]?.stringValue)
            let viaGET = try await get(client, "\(serviceURL)/unRegisterReplica?f=json&replicaID=\(id)&token=\(ada)")
            #expect(viaGET["error"]?["code"] == 405)
            #expect(try await get(client, "\(serviceURL)/replicas/\(id)?f=json&token=\(ada)")["replicaID"]?.stringValue == id)
            #expect(try await get(client, "\(serviceURL)/createReplica?f=json&layers=2&token=\(ada)")["error"]?["code"] == 405)
            #expect(try await get(client, "/arcgis/tokens/generateToken?f=json&username=ada&password=ada-password")["error"]?["code"] == 405)
        }
    }

    @Test func wrongPasswordsAreThrottledPerUserAndAddress() async throws {
        // The server's clock stands still: however slow the machine, the wait has not run out.
        try await Self.withSecuredApp(clock: ManualClock()) { client, _, _ in
            func attempt(_ password: String) async throws -> (HTTPResponse.Status, JSONValue, String?) {
                try await client.execute(
                    uri: "/arcgis/tokens/generateToken", method: .post, headers: formHeaders,
                    body: form([("f", "json"), ("username", "eve"), ("password", password)])
                ) { response in
                    (response.status, json(response), response.headers[.retryAfter])
                }
            }
            for _ in 0..<LoginThrottle.freeFailures {
                #expect(try await attempt("guess").1["error"]?["code"] == 400)
            }
            // The next attempt waits, even with the right password: refused without checking it.
            let (status, answer, retryAfter) = try await attempt("eve-password")
            #expect(status == .tooManyRequests && answer["error"]?["code"] == 429 && answer["token"] == nil)
            #expect(Int(retryAfter ?? "") ?? 0 >= 1)
        }
    }
}
