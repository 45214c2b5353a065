import OutpostGeometry
import OutpostSync
import OutpostWire
import Testing

/// A non-versioned service like the demo: points with attachments (origin of a relationship),
/// polygons, and a related table.
func demoService(versioned: Bool = false, capabilities: [String] = ServiceDefinition.defaultCapabilities) -> ServiceDefinition {
    let cities = LayerDefinition(
        id: 0, name: "Cities", kind: .featureLayer, geometryType: .point, spatialReference: .wgs84,
        fields: LayerDefinition.withSystemFields([FieldDefinition(name: "name", type: .string), FieldDefinition(name: "rank", type: .integer)]),
        hasAttachments: true,
        relationships: [RelationshipDefinition(id: 0, name: "r", relatedTableId: 3, cardinality: .oneToMany, role: .origin, keyField: "GlobalID")])
    let countries = LayerDefinition(
        id: 1, name: "Countries", kind: .featureLayer, geometryType: .polygon, spatialReference: .wgs84,
        fields: LayerDefinition.withSystemFields([FieldDefinition(name: "name", type: .string)]))
    let inspections = LayerDefinition(
        id: 3, name: "Inspections", kind: .table, geometryType: nil, spatialReference: .wgs84,
        fields: LayerDefinition.withSystemFields([FieldDefinition(name: "CityGlobalID", type: .guid)]),
        relationships: [
            RelationshipDefinition(id: 0, name: "r", relatedTableId: 0, cardinality: .oneToMany, role: .destination, keyField: "CityGlobalID")
        ])
    return ServiceDefinition(name: "Demo", isVersioned: versioned, capabilities: capabilities, layers: [cities, countries, inspections])
}

func plan(
    _ pairs: [(String, String)], service: ServiceDefinition = demoService(), taken: [String] = [],
    reference: ReplicaDefinition? = nil
) throws(ArcGISError) -> ReplicaPlan {
    let request = try CreateReplicaRequest.parse(RequestParameters(pairs))
    return try ReplicaPlanner.plan(
        request, service: service, replicaId: "{11111111-2222-4333-8444-555555555555}", owner: "ann",
        takenNames: taken, reference: reference, now: 1_700_000_000_000)
}

func rejects(
    _ pairs: [(String, String)], parameter: String, service: ServiceDefinition = demoService(),
    sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        _ = try plan(pairs, service: service)
        Issue.record("expected an error about \(parameter)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.details.joined().contains(parameter) || error.message.contains(parameter), "\(error)", sourceLocation: sourceLocation)
    }
}

@Suite struct ReplicaPlannerTests {
    @Test func defaultsFollowTheService() throws {
        let p = try plan([("layers", "0,1")])
        #expect(p.definition.syncModel == .perLayer)
        #expect(p.definition.targetType == .client)
        #expect(p.definition.syncDirection == .bidirectional)
        #expect(p.definition.attachmentsSyncDirection == .none)
        #expect(p.definition.returnAttachments == false)
        #expect(p.definition.geometry == nil)
        #expect(p.definition.name == "Replica")
        #expect(p.definition.owner == "ann")
        #expect(p.definition.layers.map(\.layerId) == [0, 1])
        #expect(p.definition.layers.allSatisfy { $0.queryOption == .useFilter && $0.useGeometry && !$0.includeRelated })
        #expect(p.dataFormat == .json && p.transportType == .url && !p.isAsync && p.returnAttachmentsDataByUrl)
        let versioned = try plan([("layers", "0")], service: demoService(versioned: true))
        #expect(versioned.definition.syncModel == .perReplica)
    }

    @Test func layersAcceptCommaListsAndJSONArrays() throws {
        #expect(try plan([("layers", "0,1")]).definition.layers.map(\.layerId) == [0, 1])
        #expect(try plan([("layers", "[0, 3]")]).definition.layers.map(\.layerId) == [0, 3])
        #expect(try plan([("layers", " [1] ")]).definition.layers.map(\.layerId) == [1])
        rejects([("layers", "7")], parameter: "layers")
        rejects([("layers", "a")], parameter: "layers")
        rejects([("layers", "[]")], parameter: "layers")
        rejects([("f", "json")], parameter: "layers")
    }

    @Test func layerQueriesSetEachLayersFilter() throws {
        let p = try plan([
            ("layers", "0,1,3"),
            (
                "layerQueries",
                """
                {"0":{"queryOption":"useFilter","where":"rank < 3","useGeometry":false},"1":{"queryOption":"all"},
                 "3":{"queryOption":"none","includeRelated":"true"}}
                """
            ),
        ])
        #expect(p.definition.layer(id: 0) == ReplicaLayer(layerId: 0, queryOption: .useFilter, useGeometry: false, whereClause: "rank < 3"))
        #expect(p.definition.layer(id: 1)?.queryOption == .all)
        #expect(p.definition.layer(id: 3)?.queryOption == ReplicaQueryOption.none)
        #expect(p.definition.layer(id: 3)?.includeRelated == true)
        // Esri's single-quoted sample syntax.
        let quoted = try plan([("layers", "0"), ("layerQueries", "{'0':{'where':'1=1','queryOption':'useFilter'}}")])
        #expect(quoted.definition.layer(id: 0)?.whereClause == "1=1")
        rejects([("layers", "0"), ("layerQueries", "{\"1\":{\"queryOption\":\"all\"}}")], parameter: "layerQueries")
        rejects([("layers", "0"), ("layerQueries", "{\"0\":{\"queryOption\":\"some\"}}")], parameter: "layerQueries")
        rejects([("layers", "0"), ("layerQueries", "{\"0\":{\"where\":\"nosuchfield = 1\"}}")], parameter: "layerQueries")
        rejects([("layers", "0"), ("layerQueries", "{\"0\":{\"where\":\"rank = 1; DROP TABLE x\"}}")], parameter: "layerQueries")
        rejects([("layers", "0"), ("layerQueries", "[1,2]")], parameter: "layerQueries")
        rejects([("layers", "0"), ("layerQueries", "{\"0\":{\"useGeometry\":\"maybe\"}}")], parameter: "layerQueries")
    }

    @Test func geometryTakesEveryTypeAndBothSyntaxes() throws {
        let envelope = try plan([
            ("layers", "0"), ("geometry", "   -20.000,    30.000,    40.000,    70.000"),
            ("geometryType", "esriGeometryEnvelope"),
        ])
        #expect(envelope.definition.geometry == .envelope(Envelope(xmin: -20, ymin: 30, xmax: 40, ymax: 70)))
        #expect(envelope.definition.geometrySpatialReference == .wgs84)
        let point = try plan([("layers", "0"), ("geometry", "1,2"), ("geometryType", "esriGeometryPoint"), ("inSR", "3857")])
        #expect(point.definition.geometry == .point(Point(x: 1, y: 2)))
        #expect(point.definition.geometrySpatialReference == SpatialReference(wkid: 3857))
        let polygon = try plan([
            ("layers", "0"), ("geometryType", "esriGeometryPolygon"),
            ("geometry", #"{"rings":[[[0,0],[0,10],[10,10],[0,0]]],"spatialReference":{"wkid":102100}}"#),
        ])
        #expect(polygon.definition.geometry?.geometryType == .polygon)
        #expect(polygon.definition.geometrySpatialReference == SpatialReference(wkid: 102100))
        let line = try plan([("layers", "0"), ("geometry", #"{"paths":[[[0,0],[5,5]]]}"#), ("geometryType", "esriGeometryPolyline")])
        #expect(line.definition.geometry?.geometryType == .polyline)
        let multipoint = try plan([("layers", "0"), ("geometry", #"{"points":[[0,0],[5,5]]}"#), ("geometryType", "esriGeometryMultipoint")])
        #expect(multipoint.definition.geometry?.geometryType == .multipoint)
        let sample = try plan([
            ("layers", "0"), ("geometry", "{'xmin':-170,'ymin':0,'xmax':0,'ymax':80,'spatialReference':{'wkid':4326}}"),
            ("inSR", "{'wkid':4326}"),
        ])
        #expect(sample.definition.geometry?.geometryType == .envelope)
        rejects([("layers", "0"), ("geometry", "1,2")], parameter: "geometry")
        rejects([("layers", "0"), ("geometry", "1,2,3")], parameter: "geometry")
        rejects([("layers", "0"), ("geometry", #"{"x":1,"y":2}"#), ("geometryType", "esriGeometryPolygon")], parameter: "geometry")
        rejects([("layers", "0"), ("geometry", "0,0,1,1"), ("geometryType", "esriGeometryCircle")], parameter: "geometryType")
        rejects([("layers", "0"), ("geometry", "0,0,1,1"), ("inSR", "north")], parameter: "inSR")
        rejects([("layers", "0"), ("geometry", "0,nan,1,1")], parameter: "geometry")
    }

    @Test func replicaSRAndFormats() throws {
        let p = try plan([
            ("layers", "0"), ("replicaSR", "{\"wkid\":102100,\"latestWkid\":3857}"), ("dataFormat", "SQLITE"),
            ("transportType", "esriTransportTypeEmbedded"), ("async", "True"),
        ])
        #expect(p.definition.spatialReference == SpatialReference(wkid: 102100))
        #expect(p.dataFormat == .sqlite && p.transportType == .embedded && p.isAsync)
        #expect(p.deliversByURL)
        #expect(try plan([("layers", "0"), ("transportType", "esriTransportTypeEmbedded")]).deliversByURL == false)
        #expect(try plan([("layers", "0"), ("transportType", "esriTransportTypeURL")]).deliversByURL)
        rejects([("layers", "0"), ("dataFormat", "filegdb")], parameter: "dataFormat")
        rejects([("layers", "0"), ("dataFormat", "xlsx")], parameter: "dataFormat")
        rejects([("layers", "0"), ("transportType", "carrierPigeon")], parameter: "transportType")
        rejects([("layers", "0"), ("async", "perhaps")], parameter: "async")
        rejects([("layers", "0"), ("replicaSR", "{}")], parameter: "replicaSR")
    }

    /// §4.5: returnAttachments=true allows bidirectional (default) or upload; false allows
    /// none (default) or upload.
    @Test(
        arguments: [
            ("true", nil, AttachmentsSyncDirection.bidirectional), ("true", "bidirectional", .bidirectional), ("true", "upload", .upload),
            ("false", nil, AttachmentsSyncDirection.none), ("false", "none", .none), ("false", "upload", .upload),
        ] as [(String, String?, AttachmentsSyncDirection)])
    func allowedAttachmentCombinations(returnAttachments: String, direction: String?, expected: AttachmentsSyncDirection) throws {
        var pairs = [("layers", "0"), ("returnAttachments", returnAttachments)]
        if let direction { pairs.append(("attachmentsSyncDirection", direction)) }
        #expect(try plan(pairs).definition.attachmentsSyncDirection == expected)
    }

    @Test func forbiddenAttachmentCombinations() {
        rejects([("layers", "0"), ("returnAttachments", "true"), ("attachmentsSyncDirection", "none")], parameter: "attachmentsSyncDirection")
        rejects(
            [("layers", "0"), ("returnAttachments", "false"), ("attachmentsSyncDirection", "bidirectional")], parameter: "attachmentsSyncDirection")
        rejects([("layers", "0"), ("attachmentsSyncDirection", "sideways")], parameter: "attachmentsSyncDirection")
    }

    @Test func attachmentDataByURLSpellings() throws {
        for name in ["returnAttachmentsDataByUrl", "returnAttachmentsDatabyUrl", "returnAttachmentsDatabyURL", "returnAttachmentDatabyURL"] {
            #expect(try plan([("layers", "0"), (name, "false")]).returnAttachmentsDataByUrl == false, "\(name)")
        }
    }

    @Test func syncModelMustMatchTheService() throws {
        #expect(try plan([("layers", "0"), ("syncModel", "perLayer")]).definition.syncModel == .perLayer)
        #expect(try plan([("layers", "0"), ("syncModel", "none")]).definition.syncModel == SyncModel.none)
        #expect(try plan([("layers", "0"), ("syncModel", "none")]).definition.id == "")
        rejects([("layers", "0"), ("syncModel", "perReplica")], parameter: "syncModel")
        rejects([("layers", "0"), ("syncModel", "perLayer")], parameter: "syncModel", service: demoService(versioned: true))
        rejects([("layers", "0"), ("syncModel", "sometimes")], parameter: "syncModel")
    }

    @Test func targetTypeAndDirection() throws {
        #expect(try plan([("layers", "0"), ("syncDirection", "download")]).definition.syncDirection == .download)
        let server = try plan([("layers", "0"), ("targetType", "server")])
        #expect(server.definition.targetType == .server && server.definition.syncDirection == .download)
        #expect(try plan([("layers", "0"), ("targetType", "server"), ("syncDirection", "upload")]).definition.syncDirection == .upload)
        rejects([("layers", "0"), ("syncDirection", "upload")], parameter: "syncDirection")
        rejects([("layers", "0"), ("targetType", "server"), ("syncDirection", "bidirectional")], parameter: "syncDirection")
        rejects([("layers", "0"), ("syncDirection", "snapshot")], parameter: "syncDirection")
        rejects([("layers", "0"), ("targetType", "satellite")], parameter: "targetType")
    }

    @Test func queryAndSyncOnlyServicesGiveDownloadReplicas() throws {
        let readOnly = demoService(capabilities: ["Query", "Sync"])
        #expect(try plan([("layers", "0")], service: readOnly).definition.syncDirection == .download)
    }

    @Test func syncMustBeEnabled() {
        do {
            _ = try plan([("layers", "0")], service: demoService(capabilities: ["Query", "Create", "Update", "Delete"]))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unsupported)
            #expect(error.details.joined().contains("Sync is not enabled"))
        }
    }

    @Test func namesAreUniquePerService() throws {
        #expect(try plan([("layers", "0"), ("replicaName", "field")], taken: ["other"]).definition.name == "field")
        #expect(try plan([("layers", "0"), ("replicaName", "field")], taken: ["FIELD", "field_0"]).definition.name == "field_1")
        #expect(ReplicaName.unique("MyReplica", taken: ["MyReplica"]) == "MyReplica_0")
        // An export (syncModel=none) registers nothing and takes any name.
        #expect(try plan([("layers", "0"), ("replicaName", "field"), ("syncModel", "none")], taken: ["field"]).definition.name == "field")
        rejects([("layers", "0"), ("replicaName", "bad\u{01}name")], parameter: "replicaName")
    }

    @Test func registeringExistingData() throws {
        let options = #"{"registerExistingData":true,"layerServerGens":[{"id":0,"serverGen":7},{"id":1,"serverGen":9}]}"#
        let p = try plan([("layers", "0,1"), ("replicaOptions", options)])
        let registration = try #require(p.registration)
        #expect(registration.layerServerGens == [0: 7, 1: 9])
        let stamped = try ReplicaPlanner.registeredGenerations(registration, for: p.definition, reference: nil, currentGeneration: 10)
        #expect(stamped.layers.map(\.serverGen) == [7, 9])
        #expect(stamped.replicaServerGen == 7)
        do {
            _ = try ReplicaPlanner.registeredGenerations(registration, for: p.definition, reference: nil, currentGeneration: 8)
            Issue.record("a generation ahead of the server must be refused")
        } catch {
            #expect(error.details.joined().contains("ahead of the server"))
        }
        // Without generations the reference replica supplies them, its layers and filters too.
        var reference = try plan([("layers", "0,3"), ("layerQueries", #"{"0":{"where":"rank < 2"}}"#)]).definition
        reference.setGeneration(4)
        let copy = try plan([("replicaOptions", #"{"refReplicaId":"{11111111-2222-4333-8444-555555555555}"}"#)], reference: reference)
        #expect(copy.definition.layers.map(\.layerId) == [0, 3])
        #expect(copy.definition.layer(id: 0)?.whereClause == "rank < 2")
        let copyStamped = try ReplicaPlanner.registeredGenerations(
            try #require(copy.registration), for: copy.definition, reference: reference,
            currentGeneration: 10)
        #expect(copyStamped.layers.map(\.serverGen) == [4, 4])
        rejects([("layers", "0"), ("replicaOptions", #"{"somethingElse":1}"#)], parameter: "replicaOptions")
        rejects([("layers", "0"), ("replicaOptions", #"{"refReplicaId":"not-a-guid"}"#)], parameter: "replicaOptions")
        rejects([("layers", "0"), ("syncModel", "none"), ("replicaOptions", #"{"registerExistingData":true}"#)], parameter: "replicaOptions")
        do {
            let noGens = try plan([("layers", "0"), ("replicaOptions", #"{"registerExistingData":true}"#)])
            _ = try ReplicaPlanner.registeredGenerations(
                try #require(noGens.registration), for: noGens.definition, reference: nil, currentGeneration: 5)
            Issue.record("generations are required without a registered reference")
        } catch let error as ArcGISError {
            #expect(error.details.joined().contains("no generation for layer 0"))
        }
    }

    @Test func infoJSONHasWhatClientsRead() throws {
        var definition = try plan([("layers", "0,1"), ("geometry", "0,0,10,10"), ("replicaName", "r")]).definition
        definition.setGeneration(42)
        let info = definition.infoJSON
        #expect(info["replicaName"] == "r")
        #expect(info["replicaID"] == "{11111111-2222-4333-8444-555555555555}")
        #expect(info["syncModel"] == "perLayer")
        #expect(info["layerServerGens"] == [["id": 0, "serverGen": 42, "serverSibGen": -1], ["id": 1, "serverGen": 42, "serverSibGen": -1]])
        #expect(info["spatialRel"] == "esriSpatialRelIntersects")
        #expect(info["geometry"]?["xmin"]?.doubleValue == 0)
        #expect(info["geometry"]?["spatialReference"]?["wkid"] == 4326)
        #expect(info["layers"]?.arrayValue?.first?["queryOption"] == "useFilter")
    }
}

@Suite struct JobRecordTests {
    func job() -> JobRecord {
        JobRecord(id: "j1", serviceName: "Demo", kind: .createReplica, replicaId: "{R}", replicaName: "r", submittedAt: 100)
    }

    @Test func movesFromPendingToCompleted() throws {
        var record = job()
        #expect(record.status == .pending)
        record = try record.applying(.started, at: 110)
        record = try record.applying(.phase(.exportingData), at: 120)
        #expect(record.status == .exportingData)
        record = try record.applying(.succeeded(resultFile: "a.gpkg"), at: 130)
        #expect(record.status == .completed && record.lastUpdatedTime == 130 && record.submissionTime == 100)
        let status = record.statusJSON(resultURL: "http://h/a.gpkg")
        #expect(status["status"] == "Completed")
        #expect(status["resultUrl"] == "http://h/a.gpkg")
        #expect(status["replicaID"] == "{R}")
    }

    @Test func finishedJobsNeverChange() throws {
        let done = try job().applying(.started, at: 1).applying(.succeeded(resultFile: "a.json"), at: 2)
        #expect(throws: JobTransitionError.alreadyFinished(.completed)) { try done.applying(.failed(.internalError("x")), at: 3) }
        let failed = try job().applying(.failed(.internalError("disk full")), at: 2)
        #expect(throws: JobTransitionError.alreadyFinished(.failed)) { try failed.applying(.succeeded(resultFile: "a"), at: 3) }
        #expect(failed.statusJSON(resultURL: "ignored")["resultUrl"] == nil)
        #expect(failed.statusJSON(resultURL: nil)["error"]?["details"] == ["disk full"])
    }

    @Test func phasesNeedAStartedJob() {
        #expect(throws: JobTransitionError.notStarted) { try job().applying(.phase(.exportingData), at: 1) }
        #expect(throws: JobTransitionError.notAPhase(.completed)) { try job().applying(.started, at: 1).applying(.phase(.completed), at: 2) }
    }

    @Test func aRestartFailsUnfinishedJobs() throws {
        let running = try job().applying(.started, at: 1).applying(.phase(.exportingData), at: 2)
        let after = try running.applying(.serverRestarted, at: 3)
        #expect(after.status == .failed)
        #expect(after.error?.details.first?.contains("restarted while the job was ExportingData") == true)
        #expect(after.resultFile == nil)
    }
}
