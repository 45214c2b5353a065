import Foundation
import OutpostClient
import OutpostWire

/// One scenario of the catalogue (`docs/conformance.md`).
public struct ConformanceScenario: Sendable {
    public var id: String
    public var title: String
    /// The behaviour of the reference it checks.
    public var checks: String
    let run: @Sendable (ConformanceContext) async throws -> Void
}

/// The catalogue, in the order it runs.
public enum ConformanceCatalogue {
    public static let scenarios: [ConformanceScenario] = coreScenarios + registrationScenarios

    static let coreScenarios: [ConformanceScenario] = [
        ConformanceScenario(
            id: "service.sync-capabilities", title: "Sync is advertised",
            checks: "§2: `syncEnabled` true, `syncCapabilities` with per-layer or per-replica sync"
        ) { c in
            try expect(c.info.syncEnabled, "the service resource says syncEnabled false (or has no Sync capability)")
            try expect(c.service["syncCapabilities"]?.objectValue != nil, "no syncCapabilities object")
            try expect(c.info.supportsPerLayerSync || c.info.supportsPerReplicaSync, "neither supportsPerLayerSync nor supportsPerReplicaSync")
        },
        ConformanceScenario(
            id: "create.extent-filter", title: "A replica holds what its extent selects",
            checks: "§4.3: `queryOption=useFilter`, `useGeometry` with an envelope"
        ) { c in
            let inside = c.newFeature()
            let outside = c.newFeature(outside: true)
            try await c.applyEdits(adds: [inside.json, outside.json])
            let replica = try await c.createReplica("extent", box: c.testBox)
            try expect(replica.globalIds.contains(inside.globalId), "the feature inside the extent is missing")
            try expect(!replica.globalIds.contains(outside.globalId), "a feature outside the extent was included")
        },
        ConformanceScenario(
            id: "create.where-filter", title: "A replica holds what its where clause selects",
            checks: "§4.3: `layerQueries` `where`"
        ) { c in
            guard let field = c.textField else { throw Unsupported(reason: "the layer has no editable text field") }
            let marked = c.newFeature([field: "cf-where"])
            let other = c.newFeature([field: "cf-other"])
            try await c.applyEdits(adds: [marked.json, other.json])
            let replica = try await c.createReplica("where", whereClause: "\(field) = 'cf-where'")
            try expect(replica.globalIds == [marked.globalId], "expected exactly the matching feature, got \(replica.globalIds.count) features")
        },
        ConformanceScenario(
            id: "create.async", title: "Asynchronous createReplica",
            checks: "§4.6: `async=true` answers `statusUrl`; the job completes with `resultUrl`"
        ) { c in
            let answer = try await c.connection.postForm(
                c.connection.url("createReplica"),
                [
                    ("replicaName", "conformance-async-\(UUID().uuidString.prefix(8))"), ("layers", String(c.layerId)),
                    ("syncModel", c.syncModel.rawValue), ("async", "true"), ("dataFormat", "json"), ("returnAttachments", "false"),
                    ("layerQueries", #"{"\#(c.layerId)":{"queryOption":"useFilter","useGeometry":true}}"#),
                    ("geometry", "\(c.testBox.xmin),\(c.testBox.ymin),\(c.testBox.xmax),\(c.testBox.ymax)"),
                    ("geometryType", "esriGeometryEnvelope"), ("inSR", String(c.wkid)),
                ])
            guard let statusURL = answer["statusUrl"]?.stringValue.flatMap(URL.init(string:)) else {
                throw Failed("no statusUrl: \(answer.jsonText.prefix(200))")
            }
            var status = JSONValue.null
            for _ in 0..<600 {
                status = try await c.connection.getJSON(statusURL)
                if status["status"] == "Completed" || status["status"] == "Failed" { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            try expect(status["status"] == "Completed", "the job ended \(status["status"]?.stringValue ?? "unfinished")")
            guard let result = status["resultUrl"]?.stringValue.flatMap(URL.init(string:)) else { throw Failed("a completed job without resultUrl") }
            let document = try await c.connection.getJSON(result)
            _ = try c.replica(from: document)
        },
        ConformanceScenario(
            id: "sync.upload-add", title: "An uploaded add reaches the server",
            checks: "§5.3: `edits` adds by GlobalID; §5.6 `addResults`"
        ) { c in
            var replica = try await c.createReplica("upload", box: c.testBox)
            let added = c.newFeature()
            let answer = try await c.sync(&replica, direction: .bidirectional, adds: [added.json])
            try expect(c.entry(answer)?["addResults"]?[0]?["success"] == true, "addResults: \(c.entry(answer)?["addResults"]?.jsonText ?? "none")")
            try expect(try await c.feature(added.globalId) != nil, "the added feature is not on the server")
        },
        ConformanceScenario(
            id: "sync.download-changes", title: "Server changes since the generation come down",
            checks: "§5.6: adds and updates since `serverGen`, net per GlobalID"
        ) { c in
            let existing = c.newFeature()
            try await c.applyEdits(adds: [existing.json])
            var replica = try await c.createReplica("download", box: c.testBox)
            let added = c.newFeature()
            var change: JSONObject = [c.globalIdField: .string(existing.globalId)]
            if let field = c.textField { change[field] = "cf-changed" }
            try await c.applyEdits(adds: [added.json], updates: [["attributes": .object(change)]])
            let answer = try await c.sync(&replica, direction: .download)
            let features = c.entry(answer)?["features"]
            try expect(c.ids(features?["adds"]).contains(added.globalId), "the online add did not come down as an add")
            try expect(c.ids(features?["updates"]).contains(existing.globalId), "the online update did not come down as an update")
        },
        ConformanceScenario(
            id: "sync.filter-exit-delete", title: "A feature leaving the extent arrives as a delete",
            checks: "§5.6: changes are filtered by the replica's filters; leaving them is a delete"
        ) { c in
            guard c.geometryType != nil else { throw Unsupported(reason: "the layer has no geometry") }
            let feature = c.newFeature()
            try await c.applyEdits(adds: [feature.json])
            var replica = try await c.createReplica("exit", box: c.testBox)
            try expect(replica.globalIds.contains(feature.globalId), "the feature is not in the replica to begin with")
            var moved: JSONObject = ["attributes": .object([c.globalIdField: .string(feature.globalId)])]
            moved["geometry"] = c.geometry(outside: true)
            try await c.applyEdits(updates: [.object(moved)])
            let answer = try await c.sync(&replica, direction: .download)
            try expect(c.ids(c.entry(answer)?["features"]?["deleteIds"]).contains(feature.globalId), "the moved feature did not arrive as a delete")
        },
        ConformanceScenario(
            id: "sync.retry-idempotent", title: "A retried sync applies nothing twice",
            checks: "§5.7: the same upload re-sent after a lost answer"
        ) { c in
            var replica = try await c.createReplica("retry", box: c.testBox)
            let added = c.newFeature()
            let fields = c.syncFields(replica, direction: .bidirectional, adds: [added.json])
            let first = try await c.connection.postForm(c.connection.url("synchronizeReplica"), fields)
            let second = try await c.connection.postForm(c.connection.url("synchronizeReplica"), fields)
            try expect(c.entry(first)?["addResults"]?[0]?["success"] == true, "the first sync failed")
            try expect(
                c.entry(second)?["addResults"]?[0]?["success"] == true,
                "the retry answered a failure: \(c.entry(second)?["addResults"]?.jsonText ?? "")")
            let copies = try await c.count(where: "\(c.globalIdField) = '\(added.globalId)'")
            try expect(copies == 1, "the feature is on the server \(copies) times")
            _ = replica
        },
        ConformanceScenario(
            id: "sync.last-in-wins", title: "The later edit wins a conflict",
            checks: "§9: last in wins between an online edit and a replica's upload"
        ) { c in
            guard let field = c.textField else { throw Unsupported(reason: "the layer has no editable text field") }
            let feature = c.newFeature([field: "cf-base"])
            try await c.applyEdits(adds: [feature.json])
            var replica = try await c.createReplica("conflict", box: c.testBox)
            try await c.applyEdits(updates: [["attributes": [c.globalIdField: .string(feature.globalId), field: "cf-online"]]])
            let answer = try await c.sync(
                &replica, direction: .bidirectional,
                updates: [["attributes": [c.globalIdField: .string(feature.globalId), field: "cf-replica"]]])
            try expect(c.entry(answer)?["updateResults"]?[0]?["success"] == true, "the update failed")
            let now = try await c.feature(feature.globalId)
            try expect(
                now?.value(forCaseInsensitiveKey: field) == "cf-replica",
                "the server kept \(now?.value(forCaseInsensitiveKey: field)?.jsonText ?? "nothing")")
        },
        ConformanceScenario(
            id: "sync.delete-deleted", title: "Deleting what is already deleted succeeds",
            checks: "§5.7: a delete of a feature deleted meanwhile is not an error"
        ) { c in
            let feature = c.newFeature()
            try await c.applyEdits(adds: [feature.json])
            var replica = try await c.createReplica("deleted", box: c.testBox)
            try await c.applyEdits(deletes: [feature.globalId])
            let answer = try await c.sync(&replica, direction: .bidirectional, deletes: [feature.globalId])
            try expect(answer["error"] == nil, "the sync failed")
            let result = c.entry(answer)?["deleteResults"]?[0]
            try expect(result == nil || result?["success"] == true, "deleteResults: \(result?.jsonText ?? "")")
        },
        ConformanceScenario(
            id: "sync.attachments", title: "Attachments travel with the replica",
            checks: "§4.5 `attachmentsSyncDirection=bidirectional`; §5.3 attachment adds with base64 data"
        ) { c in
            guard c.hasAttachments else { throw Unsupported(reason: "the layer has no attachments") }
            guard c.info.supportsAttachmentsSyncDirection else { throw Unsupported(reason: "supportsAttachmentsSyncDirection is false") }
            let feature = c.newFeature()
            try await c.applyEdits(adds: [feature.json])
            var replica = try await c.createReplica(
                "attachments", box: c.testBox,
                extra: [
                    ("returnAttachments", "true"), ("attachmentsSyncDirection", "bidirectional"), ("returnAttachmentsDataByUrl", "false"),
                ])
            let attachment = GlobalID.make()
            let answer = try await c.sync(
                &replica, direction: .bidirectional,
                attachments: [
                    "adds": [
                        [
                            "globalId": .string(attachment), "parentGlobalId": .string(feature.globalId), "contentType": "text/plain",
                            "name": "conformance.txt", "data": .string(Data("conformance".utf8).base64EncodedString()),
                        ]
                    ]
                ])
            try expect(
                c.entry(answer)?["attachments"]?["addResults"]?[0]?["success"] == true,
                "attachment addResults: \(c.entry(answer)?["attachments"]?.jsonText ?? "none")")
            guard let objectId = try await c.feature(feature.globalId)?.value(forCaseInsensitiveKey: c.objectIdField)?.int64Value else {
                throw Failed("the parent feature is gone")
            }
            let listed = try await c.connection.getJSON(c.connection.url("\(c.layerId)/\(objectId)/attachments"))
            try expect(
                listed["attachmentInfos"]?.arrayValue?.contains { $0["name"] == "conformance.txt" } == true, "the attachment is not on the server")
        },
        ConformanceScenario(
            id: "sync.direction-control", title: "Upload-only and download-only syncs",
            checks: "§9.3: `syncDirection` upload returns no changes; download ignores edits"
        ) { c in
            guard c.info.supportsSyncDirectionControl else { throw Unsupported(reason: "supportsSyncDirectionControl is false") }
            let online = c.newFeature()
            var replica = try await c.createReplica("direction", box: c.testBox)
            try await c.applyEdits(adds: [online.json])
            let uploaded = c.newFeature()
            let up = try await c.sync(&replica, direction: .upload, adds: [uploaded.json])
            try expect(c.ids(c.entry(up)?["features"]?["adds"]).isEmpty, "an upload-only sync returned changes")
            try expect(try await c.feature(uploaded.globalId) != nil, "the upload-only sync did not apply its edit")
            let ignored = c.newFeature()
            _ = try await c.sync(&replica, direction: .download, adds: [ignored.json])
            try expect(try await c.feature(ignored.globalId) == nil, "a download-only sync applied an edit")
        },
        ConformanceScenario(
            id: "replicas.list-and-info", title: "Registered replicas are listed and described",
            checks: "§6: `replicas` and `replicas/<id>`"
        ) { c in
            let replica = try await c.createReplica("listed", box: c.testBox)
            let list = try await c.connection.getJSON(c.connection.url("replicas"))
            try expect(
                list.arrayValue?.contains { GlobalID.normalize($0["replicaID"]?.stringValue ?? "") == GlobalID.normalize(replica.id) } == true,
                "the replica is not in the replicas list")
            let info = try await c.connection.getJSON(c.connection.url("replicas/\(replica.id)"))
            try expect(
                GlobalID.normalize(info["replicaID"]?.stringValue ?? "") == GlobalID.normalize(replica.id), "replicas/<id> describes another replica")
        },
        ConformanceScenario(
            id: "replicas.unregister", title: "An unregistered replica no longer syncs",
            checks: "§7: `unRegisterReplica`"
        ) { c in
            var replica = try await c.createReplica("unregister", box: c.testBox)
            _ = try await c.connection.postForm(c.connection.url("unRegisterReplica"), [("replicaID", replica.id)])
            let list = try await c.connection.getJSON(c.connection.url("replicas"))
            try expect(
                list.arrayValue?.contains { GlobalID.normalize($0["replicaID"]?.stringValue ?? "") == GlobalID.normalize(replica.id) } != true,
                "the replica is still listed")
            do {
                _ = try await c.sync(&replica, direction: .download)
                throw Failed("a sync of the unregistered replica succeeded")
            } catch is ClientError {
                // Refused, as it should be.
            }
        },
    ]
}

/// Runs the catalogue against one FeatureServer.
public struct ConformanceRunner: Sendable {
    public let connection: ServiceConnection
    /// The layer under test; default: the first feature layer.
    public var layerId: Int?

    public init(connection: ServiceConnection, layerId: Int? = nil) {
        self.connection = connection
        self.layerId = layerId
    }

    /// Runs every scenario (`only`: those whose id starts with one of the prefixes), cleans up,
    /// and reports. Never throws for a scenario: a scenario's error is its failure.
    public func run(only: [String] = [], progress: @Sendable (ConformanceReport.Entry) -> Void = { _ in }) async throws -> ConformanceReport {
        let service = try await connection.getJSON(connection.serviceURL)
        let layers = service["layers"]?.arrayValue ?? []
        guard let id = layerId ?? layers.first?["id"]?.int64Value.map({ Int($0) }) else {
            throw ClientError.unsupported("the service has no layer to test")
        }
        let layer = try await connection.getJSON(connection.url("\(id)"))
        let context = ConformanceContext(connection: connection, service: service, layerId: id, layer: layer)
        let formatter = ISO8601DateFormatter()
        var report = ConformanceReport(serviceURL: connection.serviceURL.absoluteString, date: formatter.string(from: Date()), entries: [])
        let clock = ContinuousClock()
        let syncAdvertised = context.info.syncEnabled
        for scenario in ConformanceCatalogue.scenarios where only.isEmpty || only.contains(where: { scenario.id.hasPrefix($0) }) {
            let started = clock.now
            var status = ScenarioStatus.pass
            var detail = ""
            do {
                try await scenario.run(context)
            } catch let unsupported as Unsupported {
                status = .unsupported
                detail = unsupported.reason
            } catch let failed as Failed {
                status = .fail
                detail = failed.description
            } catch {
                status = .fail
                detail = String(describing: error)
            }
            if !syncAdvertised, status == .fail, scenario.id != "service.sync-capabilities" {
                detail = "(sync not advertised) " + detail
            }
            let elapsed = clock.now - started
            let entry = ConformanceReport.Entry(
                id: scenario.id, title: scenario.title, checks: scenario.checks, status: status, detail: detail,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            report.entries.append(entry)
            progress(entry)
        }
        await context.cleanUp()
        return report
    }
}
