import Foundation
import OutpostWire

/// The offline workflow against one FeatureServer, after the ArcGIS Maps SDKs'
/// `GeodatabaseSyncTask`: generate a geodatabase, sync it both ways, register a copy,
/// unregister. Long operations are `Job`s (`GenerateGeodatabaseJob`, `SyncGeodatabaseJob`).
public final class GeodatabaseSyncTask: Sendable {
    public let connection: ServiceConnection

    public init(url: URL, token: String? = nil, retryWindow: Duration = .seconds(600), transport: (any HTTPTransport)? = nil) {
        connection = ServiceConnection(serviceURL: url, token: token, retryWindow: retryWindow, transport: transport)
    }

    public init(connection: ServiceConnection) {
        self.connection = connection
    }

    /// The service resource.
    public func load() async throws -> FeatureServiceInfo {
        let info = FeatureServiceInfo(json: try await connection.getJSON(connection.serviceURL))
        guard info.syncEnabled else { throw ClientError.unsupported("\(connection.serviceURL) is not sync-enabled") }
        return info
    }

    /// Parameters honouring the service: per-layer sync when supported (else per-replica),
    /// attachments on, every layer filtered by `extent`, tables whole (`queryOption=all`).
    public func makeDefaultGenerateGeodatabaseParameters(
        extent: Envelope?, spatialReference: SpatialReference = .wgs84
    ) async throws
        -> GenerateGeodatabaseParameters
    {
        let info = try await load()
        let options = info.layers.map { layer in
            layer.isTable
                ? GenerateLayerOption(layerId: layer.id, queryOption: .all, useGeometry: false)
                : GenerateLayerOption(layerId: layer.id, queryOption: .useFilter, useGeometry: extent != nil)
        }
        return GenerateGeodatabaseParameters(
            extent: extent, extentSpatialReference: spatialReference, layerOptions: options,
            syncModel: info.supportsPerLayerSync ? .perLayer : .perReplica, returnAttachments: true,
            attachmentsSyncDirection: info.supportsAttachmentsSyncDirection ? .bidirectional : .none)
    }

    /// A job that creates the replica on the server and downloads it to `downloadFileURL`
    /// (a file URL that must not exist yet); its output is the geodatabase, open. Call `start()`.
    public func makeGenerateGeodatabaseJob(parameters: GenerateGeodatabaseParameters, downloadFileURL: URL) -> GenerateGeodatabaseJob {
        let document = JobDocument(
            id: Self.newJobId(), kind: .generate, serviceURL: connection.serviceURL.absoluteString, path: downloadFileURL.path,
            generate: parameters)
        return GenerateGeodatabaseJob(engine: JobEngine(document: document, connection: connection), output: GenerateGeodatabaseJob.openedGeodatabase)
    }

    /// Parameters for syncing `geodatabase`: both ways (or as the replica allows), every layer.
    public func makeDefaultSyncGeodatabaseParameters(geodatabase: Geodatabase) throws -> SyncGeodatabaseParameters {
        let info = try geodatabase.info()
        var parameters = SyncGeodatabaseParameters()
        parameters.syncDirection = info.syncDirection
        return parameters
    }

    /// A job that uploads the geodatabase's local edits and applies the server's changes.
    public func makeSyncGeodatabaseJob(
        parameters: SyncGeodatabaseParameters = SyncGeodatabaseParameters(), geodatabase: Geodatabase
    )
        -> SyncGeodatabaseJob
    {
        let document = JobDocument(
            id: Self.newJobId(), kind: .sync, serviceURL: connection.serviceURL.absoluteString, path: geodatabase.path, sync: parameters)
        return SyncGeodatabaseJob(
            engine: JobEngine(document: document, connection: connection, geodatabase: geodatabase), output: SyncGeodatabaseJob.syncResult)
    }

    /// Registers a copy of a geodatabase as a replica of its own (it then syncs
    /// independently of the file it was copied from). Returns the new replica id.
    @discardableResult
    public func registerSyncEnabledGeodatabase(_ geodatabase: Geodatabase) async throws -> String {
        let info = try geodatabase.info()
        return try await Self.registerExistingData(
            of: geodatabase, named: info.replicaName + " copy",
            from: Dictionary(info.layers.map { ($0.layerId, $0.serverGen) }, uniquingKeysWith: { a, _ in a }),
            connection: connection)
    }

    /// Registers the data of `geodatabase` as a replica of its own, with `generations` by layer
    /// (per replica: their lowest), and writes the new replica id into the file.
    static func registerExistingData(
        of geodatabase: Geodatabase, named name: String, from generations: [Int: Int64], connection: ServiceConnection
    ) async throws -> String {
        let info = try geodatabase.info()
        var request = CreateReplicaRequest()
        request.layers = info.layers.map(\.layerId)
        request.syncModel = info.syncModel
        request.replicaName = name
        request.transportType = .embedded
        // The copy's own filters, so the registration does not hang on the reference replica
        // (a server restored from an older backup may not know it).
        request.syncDirection = info.syncDirection
        request.replicaSR = info.spatialReference
        if let geometry = info.geometry {
            let type: EsriGeometryType? =
                geometry["xmin"] != nil
                ? .envelope
                : geometry["rings"] != nil ? .polygon : geometry["paths"] != nil ? .polyline : geometry["points"] != nil ? .multipoint : .point
            request.geometry = QueryGeometry(
                text: geometry.jsonText, geometryType: type,
                inSR: geometry["spatialReference"]?["wkid"]?.int64Value.map { SpatialReference(wkid: Int($0)) })
        }
        for layer in info.layers {
            request.layerQueries[layer.layerId] = ReplicaLayerQuery(
                queryOption: layer.queryOption, useGeometry: layer.useGeometry, includeRelated: layer.includeRelated, whereClause: layer.whereClause)
        }
        request.registerExistingData =
            info.syncModel == .perReplica
            ? RegisterExistingData(referenceReplicaId: info.replicaId, replicaServerGen: generations.values.min() ?? info.replicaServerGen)
            : RegisterExistingData(referenceReplicaId: info.replicaId, layerServerGens: generations)
        if info.attachmentsSyncDirection != .none {
            request.returnAttachments = true
            request.attachmentsSyncDirection = info.attachmentsSyncDirection
        }
        let answer = try await connection.postForm(connection.url("createReplica"), request.formFields)
        guard let registration = ReplicaRegistrationAnswer(json: answer) else {
            throw ClientError.invalidResponse("registration answered no replicaID")
        }
        try geodatabase.setReplica(id: registration.replicaId, name: registration.replicaName.isEmpty ? info.replicaName : registration.replicaName)
        return registration.replicaId
    }

    /// Makes the geodatabase send everything it holds again to a server restored from a backup
    /// older than its last sync (docs/operations.md, "After a restore"): from the generations
    /// the server remembers giving its replica, or, when the server does not know the replica
    /// (registered after the backup), as a new registration of its data from generation 0.
    /// A sync job does this on its own when the server answers 409; call it for a replica the
    /// restored server answers "Replica not found", then sync. Returns what was done.
    @discardableResult
    public func resendAfterRestore(_ geodatabase: Geodatabase) async throws -> String {
        try await RestoredServerRecovery.run(geodatabase, connection: connection)
    }

    /// Unregisters the geodatabase's replica on the server; the file stays, but no longer syncs.
    public func unregisterGeodatabase(_ geodatabase: Geodatabase) async throws {
        let info = try geodatabase.info()
        _ = try await connection.postForm(connection.url("unRegisterReplica"), [("replicaID", info.replicaId)])
    }

    static func newJobId() -> String { UUID().uuidString.lowercased() }
}
