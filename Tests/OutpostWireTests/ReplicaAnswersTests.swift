import OutpostWire
import Testing

/// The replica vocabulary both ways: what the server encodes the client parses back to the
/// same value, and what the client sends the server parses back to the same request.
@Suite struct ReplicaAnswersTests {
    static let id = "{AAAAAAAA-0000-4000-8000-000000000001}"
    /// An envelope carries a code, not a kind: it reads back as the first kind of its code.
    static let failure = ArcGISError(kind: .invalidParameter, message: "Unable to complete operation.", details: ["disk full"])

    @Test(arguments: [
        ReplicaJobSubmission(statusURL: "http://h/jobs/j1", replicaId: id, replicaName: "field", targetType: .client),
        ReplicaJobSubmission(statusURL: "http://h/jobs/j2", replicaId: id, replicaName: "field"),
    ])
    func jobSubmissionsRoundTrip(_ submission: ReplicaJobSubmission) {
        #expect(ReplicaJobSubmission(json: submission.json) == submission)
    }

    @Test(arguments: [
        ReplicaFileAnswer(responseType: .data, replicaName: "a", replicaId: id, generations: .perReplica(12), url: "http://h/f.gpkg"),
        ReplicaFileAnswer(responseType: .edits, replicaName: "a", replicaId: id, generations: .perLayer([(0, 5), (2, 7)]), url: "http://h/d.json"),
        ReplicaFileAnswer(responseType: .noEdits, replicaName: "a", replicaId: id, generations: .perLayer([(0, 5)]), url: nil),
    ])
    func fileAnswersRoundTrip(_ answer: ReplicaFileAnswer) {
        #expect(ReplicaFileAnswer(json: answer.json) == answer)
        // Clients read the URL as either name.
        #expect(answer.json["URL"] == answer.json["responseUrl"])
    }

    @Test(arguments: [
        ReplicaJobStatus(
            replicaName: "a", replicaId: id, transportType: .url, responseType: .data, submissionTime: 1, lastUpdatedTime: 2,
            status: .exportingData),
        ReplicaJobStatus(
            replicaName: "a", replicaId: id, transportType: .url, responseType: .edits, submissionTime: 1, lastUpdatedTime: 9,
            status: .completed, resultURL: "http://h/f.gpkg"),
        ReplicaJobStatus(
            replicaName: "a", replicaId: id, transportType: .url, responseType: .data, submissionTime: 1, lastUpdatedTime: 9,
            status: .failed, error: failure),
    ])
    func jobStatusesRoundTrip(_ status: ReplicaJobStatus) {
        #expect(ReplicaJobStatus(json: status.json) == status)
    }

    @Test func registrationAnswersRoundTrip() {
        for answer in [
            ReplicaRegistrationAnswer(
                replicaName: "copy", replicaId: Self.id, generations: .perReplica(3), syncModel: .perReplica, targetType: .client),
            ReplicaRegistrationAnswer(
                replicaName: "copy", replicaId: Self.id, generations: .perLayer([(1, 4)]), syncModel: .perLayer, targetType: .server),
        ] {
            #expect(ReplicaRegistrationAnswer(json: answer.json) == answer)
        }
    }

    @Test func createReplicaRequestsRoundTripThroughTheirFormFields() throws {
        var full = CreateReplicaRequest()
        full.replicaName = "field crew"
        full.layers = [0, 2]
        full.layerQueries = [
            0: ReplicaLayerQuery(queryOption: .useFilter, useGeometry: true, includeRelated: false, whereClause: "height > 3"),
            2: ReplicaLayerQuery(queryOption: .all),
        ]
        full.geometry = QueryGeometry(text: "-10,40,10,50", geometryType: .envelope, inSR: SpatialReference(wkid: 4326))
        full.replicaSR = SpatialReference(wkid: 3857)
        full.transportType = .embedded
        full.returnAttachments = true
        full.returnAttachmentsDataByUrl = false
        full.isAsync = true
        full.syncModel = .perLayer
        full.targetType = .server
        full.syncDirection = .download
        full.attachmentsSyncDirection = .bidirectional
        full.dataFormat = .sqlite
        full.syncDataOptions = 4
        var registration = CreateReplicaRequest()
        registration.layers = [0]
        registration.registerExistingData = RegisterExistingData(referenceReplicaId: Self.id, layerServerGens: [0: 5, 3: 9])
        for request in [CreateReplicaRequest(), full, registration] {
            #expect(try CreateReplicaRequest.parse(RequestParameters(request.formFields)) == request)
        }
    }

    @Test func synchronizeReplicaRequestsRoundTripThroughTheirFormFields() throws {
        var perLayer = SynchronizeReplicaRequest(replicaId: Self.id)
        perLayer.syncLayers = .layers([SyncLayerRequest(layerId: 0, serverGen: 5, syncDirection: .download), SyncLayerRequest(layerId: 2)])
        perLayer.dataFormat = .sqlite
        perLayer.isAsync = true
        perLayer.returnIdsForAdds = true
        perLayer.rollbackOnFailure = true
        perLayer.returnAttachmentsDataByUrl = false
        perLayer.upload = .uploadedFile(itemID: "i" + String(Self.id.dropFirst().dropLast()).lowercased(), format: .sqlite)
        var perReplica = SynchronizeReplicaRequest(replicaId: Self.id)
        perReplica.replicaServerGen = 12
        perReplica.syncDirection = .upload
        perReplica.closeReplica = true
        perReplica.syncLayers = .notALayerList("perReplica")
        let edits = #"[{"id":0,"features":{"adds":[],"updates":[],"deleteIds":["\#(Self.id)"]}}]"#
        perReplica.upload = .inline(try SynchronizeReplicaRequest.parseEdits(try JSONParser.parse(edits), parameter: "edits"), text: edits)
        for request in [SynchronizeReplicaRequest(replicaId: Self.id), perLayer, perReplica] {
            #expect(try SynchronizeReplicaRequest.parse(RequestParameters(request.formFields)) == request)
        }
    }
}

extension ReplicaJobSubmission: CustomTestStringConvertible {
    public var testDescription: String { statusURL }
}

extension ReplicaFileAnswer: CustomTestStringConvertible {
    public var testDescription: String { "\(responseType)" }
}

extension ReplicaJobStatus: CustomTestStringConvertible {
    public var testDescription: String { status.rawValue }
}

/// The service resource both ways: what the server says of a service, a client reads back.
@Suite struct ServiceInfoTests {
    static func service(versioned: Bool) -> ServiceDefinition {
        ServiceDefinition(
            name: "S", isVersioned: versioned, spatialReference: SpatialReference(wkid: 3857),
            layers: [
                LayerDefinition(
                    id: 0, name: "Points", kind: .featureLayer, geometryType: .point, spatialReference: SpatialReference(wkid: 3857),
                    fields: LayerDefinition.withSystemFields([])),
                LayerDefinition(
                    id: 4, name: "Notes", kind: .table, geometryType: nil, spatialReference: SpatialReference(wkid: 3857),
                    fields: LayerDefinition.withSystemFields([])),
            ])
    }

    @Test(arguments: [false, true])
    func syncCapabilitiesRoundTrip(versioned: Bool) {
        let capabilities = SyncCapabilities(for: Self.service(versioned: versioned))
        #expect(SyncCapabilities(json: capabilities.json) == capabilities)
        #expect(capabilities.supportsPerLayerSync == !versioned && capabilities.supportsSyncDirectionControl == versioned)
    }

    @Test(arguments: [false, true])
    func whatTheServiceResourceSaysAClientReadsBack(versioned: Bool) {
        let service = Self.service(versioned: versioned)
        let extent = Envelope(xmin: -10, ymin: -5, xmax: 10, ymax: 5)
        let info = FeatureServiceInfo(json: FeatureServiceMetadata.serviceJSON(service, fullExtent: extent))
        let capabilities = SyncCapabilities(for: service)
        #expect(info.syncEnabled && info.supportsPerLayerSync == capabilities.supportsPerLayerSync)
        #expect(info.supportsPerReplicaSync == capabilities.supportsPerReplicaSync)
        #expect(info.supportsSyncDirectionControl == capabilities.supportsSyncDirectionControl)
        #expect(info.supportsRegisteringExistingData == capabilities.supportsRegisteringExistingData)
        #expect(info.supportsAttachmentsSyncDirection == capabilities.supportsAttachmentsSyncDirection)
        #expect(info.layers.map(\.id) == [0, 4] && info.layers.map(\.isTable) == [false, true] && info.layers.map(\.name) == ["Points", "Notes"])
        #expect(info.spatialReference?.wkid == 3857 && info.fullExtent == extent)
    }
}
