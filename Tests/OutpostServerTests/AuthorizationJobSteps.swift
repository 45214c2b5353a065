import Foundation
import OutpostService
import OutpostStorage
import OutpostTestSupport
import OutpostWire
import Testing

@testable import OutpostServer

/// The job steps of `AuthorizationTable.jobSteps` that a caller can be refused at: the map
/// area's three tasks, submitted by another editor, the owner and an admin.
extension AuthorizationSession {
    func checkJobSteps(tally: inout Tally) async throws {
        let steps = Dictionary(uniqueKeysWithValues: AuthorizationTable.server.jobSteps.map { ($0.name, $0) })
        let editors: [Who] = [.otherEditor, .owner, .admin]

        // CreateMapArea: the web map must be the caller's to change (a map they may not see is not found).
        let create = try #require(steps["CreateMapArea"])
        var xmin = 20
        for access in ["private", "org"] {
            for who in editors {
                xmin += 2
                let run = try await packagingJob("CreateMapArea", as: who, areaFields(objects.webMaps[access]!, xmin: xmin))
                tally.steps += 1
                let refused = create.refusal(caller: who.user, subject: Self.subject(access))
                tally.check(
                    (run.status == "esriJobSucceeded") == (refused == nil),
                    "job step CreateMapArea of the owner's \(access) web map as \(who): expected \(refused == nil ? "to run" : "to fail"), got \(run.json)"
                )
            }
        }

        // CreateMapArea given a map area (a new schedule): the area must be the caller's to change.
        let reschedule = try #require(steps["CreateMapArea of a map area (a new schedule)"])
        for who in editors {
            let run = try await packagingJob("CreateMapArea", as: who, [("mapItemId", objects.area)])
            tally.steps += 1
            let refused = reschedule.refusal(caller: who.user, subject: Self.subject("org"))
            tally.check(
                (run.status == "esriJobSucceeded") == (refused == nil),
                "job step CreateMapArea of the owner's map area as \(who): expected \(refused == nil ? "to run" : "to fail"), got \(run.json)")
        }

        // SetupMapArea: the area must be the caller's to change; what it makes is the area's owner's.
        let setup = try #require(steps["SetupMapArea"])
        let second = try await packagingJob("CreateMapArea", as: .owner, areaFields(objects.webMaps["org"]!, xmin: 40))
        let areas: [(Who, String)] = [(.otherEditor, objects.area), (.owner, objects.area), (.admin, try #require(second.json.stringValue))]
        var packages: [String] = []
        for (who, area) in areas {
            let run = try await packagingJob("SetupMapArea", as: who, [("mapAreaItemId", area)])
            tally.steps += 1
            let refused = setup.refusal(caller: who.user, subject: Self.subject("org"))
            tally.check(
                (run.status == "esriJobSucceeded") == (refused == nil),
                "job step SetupMapArea of the owner's area as \(who): expected \(refused == nil ? "to run" : "to fail"), got \(run.json)")
            for made in run.json.arrayValue ?? [] {
                guard let id = made["itemId"]?.stringValue, let package = try store.portal.item(id: id) else { continue }
                packages.append(id)
                tally.check(
                    package.owner == Self.owner, "job step SetupMapArea as \(who): package \(id) belongs to '\(package.owner)', not the area's owner")
                guard let replica = package.properties["replicaID"]?.stringValue else { continue }
                let owner = try store.replicas.replica(service: "Demo", id: replica)?.owner
                tally.check(
                    owner == Self.owner,
                    "job step SetupMapArea as \(who): the replica \(replica) of package \(id) (owned by \(Self.owner)) is registered for '\(owner ?? "nobody")', not the package's owner"
                )
            }
        }

        // RefreshMapAreaPackage: each package must be the caller's to change.
        let refresh = try #require(steps["RefreshMapAreaPackage"])
        guard let package = packages.first else {
            tally.check(false, "job step RefreshMapAreaPackage: no package to refresh")
            return
        }
        for who in editors {
            let run = try await packagingJob("RefreshMapAreaPackage", as: who, [("packages", #"[{"itemId":"\#(package)"}]"#)])
            tally.steps += 1
            let refused = refresh.refusal(caller: who.user, subject: Self.subject("org"))
            let state = run.json[0]?["state"]?.stringValue
            tally.check(
                run.status == "esriJobSucceeded" && (state == "failed") == (refused != nil),
                "job step RefreshMapAreaPackage of the owner's package as \(who): expected \(refused == nil ? "a refresh" : "state failed"), got \(run.json)"
            )
        }
    }

    /// Objects a form names rather than the path, held to their own row's right: an export's
    /// output or a replica file as an item's `dataUrl`, an upload as a sync's `editsUploadID`.
    /// Another's is refused as a bad parameter (400), as one that does not exist is.
    func checkNamedObjects(tally: inout Tally) async throws {
        let editors: [Who] = [.otherEditor, .owner, .admin]
        let files = [
            ("dataUrl of the owner's export output", "/arcgis/rest/directories/arcgisoutput/\(objects.exportJob)/\(objects.exportFile)"),
            ("dataUrl of the owner's replica file", "/arcgis/rest/services/Demo/replicafiles/\(objects.resultFile)"),
        ]
        for (label, url) in files {
            for who in editors {
                let name = who.user!.name
                let answer = try await send(
                    Probe(
                        path: "\(Self.portal)/content/users/\(name)/addItem",
                        fields: [("f", "json"), ("type", "Tile Package"), ("title", unique("taken")), ("dataUrl", url)]), as: who)
                tally.steps += 1
                let allowed = Self.owned.isManaged(by: who.user)
                let agreed = allowed ? answer.refusal == nil : answer.refusal?.code == 400
                tally.check(agreed, "addItem with \(label) as \(who): expected \(allowed ? "allowed" : "400"), got \(answer)")
            }
        }
        // A tile service's item: the organisation's, so only an administrator deletes it (and the service).
        let deletion = try #require(AuthorizationTable.server.jobSteps.first { $0.name == "deleting a tile service (its item)" })
        for who in editors {
            let name = unique("Doomed")
            let set = try store.tiles.addTileSet(mbtiles: try MBTilesFixtures.make(), name: name, description: nil)
            let item = ServiceItems.id(forService: "\(set.kind.serviceKind):\(name)")
            let answer = try await send(Probe(path: "\(Self.portal)/content/users/outpost/items/\(item)/delete", fields: [("f", "json")]), as: who)
            tally.steps += 1
            let refused = deletion.refusal(caller: who.user, subject: Self.subject("org", ofServer: true))
            let gone = try store.tiles.tileSet(named: name) == nil
            tally.check(
                refused == nil ? answer.refusal == nil && gone : answer.refusal?.code == refused?.code && !gone,
                "deleting tile service \(name) as \(who): expected \(refused.map { "\($0)" } ?? "deleted"), got \(answer), gone: \(gone)")
        }
        let serviceDeletion = try #require(AuthorizationTable.server.jobSteps.first { $0.name == "deleting a feature service (its item)" })
        for who in editors {
            let name = unique("Doomed")
            var definition = try store.schema.service(named: "Parcels").definition
            definition.name = name
            try store.schema.createService(definition)
            let item = ServiceItems.id(forService: name)
            let answer = try await send(Probe(path: "\(Self.portal)/content/users/outpost/items/\(item)/delete", fields: [("f", "json")]), as: who)
            tally.steps += 1
            let refused = serviceDeletion.refusal(caller: who.user, subject: Self.subject("org", ofServer: true))
            let gone = try store.schema.catalog().service(named: name) == nil
            tally.check(
                refused == nil ? answer.refusal == nil && gone : answer.refusal?.code == refused?.code && !gone,
                "deleting feature service \(name) as \(who): expected \(refused.map { "\($0)" } ?? "deleted"), got \(answer), gone: \(gone)")
        }
        let upload = try await freshUpload(parts: true)
        _ = try await made(Probe(path: "\(Self.service)/uploads/\(upload)/commit", fields: [("f", "json"), ("parts", "1")]))
        for who in editors {
            let created = try await made(createReplica(), as: who)
            let replica = try #require(created["replicaID"]?.stringValue)
            let generation = created["layerServerGens"]?[0]?["serverGen"]?.int64Value ?? 0
            let answer = try await send(
                Probe(
                    path: "\(Self.service)/synchronizeReplica",
                    fields: [
                        ("f", "json"), ("replicaID", replica), ("transportType", "esriTransportTypeEmbedded"), ("editsUploadID", upload),
                        ("editsUploadFormat", "json"), ("syncLayers", #"[{"id":2,"serverGen":\#(generation)}]"#),
                    ]), as: who)
            tally.steps += 1
            let allowed = Self.owned.isManaged(by: who.user)
            let agreed = allowed ? answer.refusal == nil : answer.refusal?.code == 400
            tally.check(
                agreed,
                "synchronizeReplica of their own replica with editsUploadID of the owner's upload as \(who): expected \(allowed ? "allowed" : "400"), got \(answer)"
            )
        }
    }
}
