import OutpostGeometry
import OutpostWire

/// What a valid `createReplica` asks for: the replica to register (generations still to be
/// stamped by the snapshot) and how to deliver it.
public struct ReplicaPlan: Sendable, Equatable {
    public var definition: ReplicaDefinition
    public var dataFormat: ReplicaDataFormat
    /// What the caller asked; sqlite data and async jobs are delivered by URL regardless.
    public var transportType: TransportType
    public var isAsync: Bool
    public var returnAttachmentsDataByUrl: Bool
    /// Set when the request registers data that already exists (no data is exported).
    public var registration: RegisterExistingData?

    /// Results travel by URL unless JSON was asked for inline and synchronously (§4.6).
    public var deliversByURL: Bool { isAsync || dataFormat == .sqlite || transportType == .url }
}

/// Decides whether a `createReplica` request makes sense for a service, and fills in the
/// defaults. Pure: the store supplies the facts (service, names taken, reference replica).
///
/// Every rule here is a row of `docs/decisions.md` ("Replicas").
public enum ReplicaPlanner {
    public static let maximumWhereLength = 16 * 1024

    /// - Parameters:
    ///   - replicaId: the id the replica gets (canonical GlobalID form).
    ///   - takenNames: the names of the service's registered replicas.
    ///   - reference: the replica named by `replicaOptions.refReplicaId`, if still registered.
    public static func plan(
        _ request: CreateReplicaRequest, service: ServiceDefinition, replicaId: String, owner: String,
        takenNames: [String], reference: ReplicaDefinition? = nil, now: Int64
    ) throws(ArcGISError) -> ReplicaPlan {
        let capabilities = Set(service.capabilities.map { $0.lowercased() })
        guard capabilities.contains("sync") else {
            throw ArcGISError(
                kind: .unsupported, message: "Unable to complete operation.",
                details: ["Sync is not enabled on service '\(service.name)' (capabilities: \(service.capabilities.joined(separator: ",")))."])
        }

        // Sync model: the service decides which one it supports (§9.2).
        let supported: SyncModel = service.isVersioned ? .perReplica : .perLayer
        let syncModel = request.syncModel ?? supported
        if syncModel != .none && syncModel != supported {
            throw .invalidParameter(
                "syncModel",
                "\(syncModel.rawValue) is not supported by service '\(service.name)': "
                    + (service.isVersioned ? "versioned data syncs perReplica" : "non-versioned data syncs perLayer"))
        }
        if request.registerExistingData != nil && syncModel == .none {
            throw .invalidParameter("replicaOptions", "registering existing data needs syncModel \(supported.rawValue)")
        }

        // Layers.
        guard let layerIds = request.layers ?? reference?.layers.map(\.layerId) else {
            throw .missingParameter("layers")
        }
        for id in layerIds where service.layer(id: id) == nil {
            throw .invalidParameter("layers", "service '\(service.name)' has no layer or table \(id)")
        }
        for id in request.layerQueries.keys where !layerIds.contains(id) {
            throw .invalidParameter("layerQueries", "layer \(id) is not in 'layers'")
        }
        var layers: [ReplicaLayer] = []
        for id in layerIds {
            let definition = service.layer(id: id)!
            let query = request.layerQueries[id]
            let inherited = reference?.layer(id: id)
            var layer = ReplicaLayer(layerId: id)
            layer.queryOption = query?.queryOption ?? inherited?.queryOption ?? .useFilter
            layer.useGeometry = query?.useGeometry ?? inherited?.useGeometry ?? true
            layer.includeRelated = query?.includeRelated ?? inherited?.includeRelated ?? false
            layer.whereClause = query?.whereClause ?? (query == nil ? inherited?.whereClause : nil)
            if let text = layer.whereClause {
                guard text.utf8.count <= maximumWhereLength else {
                    throw .invalidParameter("layerQueries", "layer \(id): where is longer than \(maximumWhereLength) bytes")
                }
                do {
                    _ = try WhereValidator.parse(where: text, fields: fieldTypes(of: definition))
                } catch {
                    throw .invalidParameter("layerQueries", "layer \(id): 'where' is invalid: \(error)")
                }
            }
            layers.append(layer)
        }

        // Geometry.
        var geometry: Geometry?
        var geometrySR = service.spatialReference
        if let sent = request.geometry {
            do throws(GeometryError) {
                let (parsed, embeddedSR) = try Geometry.fromQueryParameter(sent.text, geometryType: sent.geometryType ?? .envelope)
                try parsed.validate()
                if let expected = sent.geometryType, parsed.geometryType != expected {
                    throw GeometryError.invalid("a \(parsed.geometryType.shortName) was sent with geometryType \(expected.rawValue)")
                }
                geometry = parsed
                geometrySR = sent.inSR ?? embeddedSR ?? service.spatialReference
            } catch {
                throw .invalidParameter("geometry", error.description)
            }
        } else if let reference, request.layers == nil {
            geometry = reference.geometry
            geometrySR = reference.geometrySpatialReference
        }

        // Attachments (§4.5).
        let returnAttachments = request.returnAttachments
        let attachmentsDirection: AttachmentsSyncDirection
        switch (returnAttachments, request.attachmentsSyncDirection) {
        case (true, nil): attachmentsDirection = .bidirectional
        case (true, .some(let direction)) where direction != .none: attachmentsDirection = direction
        case (false, nil): attachmentsDirection = .none
        case (false, .some(let direction)) where direction != .bidirectional: attachmentsDirection = direction
        case (let sent, .some(let direction)):
            throw .invalidParameter(
                "attachmentsSyncDirection",
                "\(direction.rawValue) cannot be combined with returnAttachments=\(sent): with returnAttachments=true use bidirectional or upload, with false use none or upload"
            )
        }

        // Directions (§4.2, §9.5).
        var syncDirection: SyncDirection
        switch (request.targetType, request.syncDirection) {
        case (.client, nil): syncDirection = .bidirectional
        case (.client, .some(let direction)) where direction == .bidirectional || direction == .download: syncDirection = direction
        case (.server, nil): syncDirection = .download
        case (.server, .some(let direction)) where direction == .upload || direction == .download: syncDirection = direction
        case (let target, .some(let direction)):
            throw .invalidParameter(
                "syncDirection",
                "\(direction.rawValue) is not allowed for targetType \(target.rawValue): "
                    + (target == .client ? "use bidirectional or download" : "use upload or download"))
        }
        // A Query+Sync service without editing gives download-only replicas (§2.3).
        if capabilities.isDisjoint(with: ["create", "update", "delete"]) { syncDirection = .download }

        var name = request.replicaName ?? reference.map { "\($0.name)_copy" } ?? "Replica"
        if syncModel != .none { name = ReplicaName.unique(name, taken: takenNames) }

        let definition = ReplicaDefinition(
            id: syncModel == .none ? "" : replicaId, name: name, serviceName: service.name, owner: owner,
            syncModel: syncModel, targetType: request.targetType, syncDirection: syncDirection,
            attachmentsSyncDirection: attachmentsDirection, returnAttachments: returnAttachments,
            geometry: geometry, geometrySpatialReference: geometrySR,
            spatialReference: request.replicaSR ?? reference?.spatialReference ?? service.spatialReference,
            layers: layers, creationDate: now, syncDataOptions: request.syncDataOptions)
        return ReplicaPlan(
            definition: definition, dataFormat: request.dataFormat, transportType: request.transportType,
            isAsync: request.isAsync, returnAttachmentsDataByUrl: request.returnAttachmentsDataByUrl,
            registration: request.registerExistingData)
    }

    /// The generations a registration of existing data starts from: sent in `replicaOptions`,
    /// else the reference replica's. Every layer needs one.
    public static func registeredGenerations(
        _ registration: RegisterExistingData, for definition: ReplicaDefinition,
        reference: ReplicaDefinition?, currentGeneration: Int64
    ) throws(ArcGISError) -> ReplicaDefinition {
        var result = definition
        for index in result.layers.indices {
            let id = result.layers[index].layerId
            guard let gen = registration.layerServerGens[id] ?? registration.replicaServerGen ?? reference?.layer(id: id)?.serverGen else {
                throw .invalidParameter(
                    "replicaOptions",
                    "no generation for layer \(id): send replicaServerGen or layerServerGens, or a refReplicaId that is still registered")
            }
            guard gen <= currentGeneration else {
                throw .invalidParameter("replicaOptions", "generation \(gen) of layer \(id) is ahead of the server (\(currentGeneration))")
            }
            result.layers[index].serverGen = gen
        }
        result.replicaServerGen = result.layers.map(\.serverGen).min() ?? 0
        return result
    }

    /// A layer's field types by name (any case), for checking a `where` (no SQL is made here).
    static func fieldTypes(of layer: LayerDefinition) -> WhereValidator.FieldTypes {
        let fields = Dictionary(layer.fields.map { ($0.name.lowercased(), $0.type) }, uniquingKeysWith: { first, _ in first })
        return { name in fields[name.lowercased()] }
    }
}

/// Replica names are unique per service, ignoring case; a taken name gets the first free
/// `_<n>` suffix, as ArcGIS does (`MyReplica` → `MyReplica_0`).
public enum ReplicaName {
    public static func unique(_ requested: String, taken: [String]) -> String {
        let lowered = Set(taken.map { $0.lowercased() })
        guard lowered.contains(requested.lowercased()) else { return requested }
        var n = 0
        while lowered.contains("\(requested)_\(n)".lowercased()) { n += 1 }
        return "\(requested)_\(n)"
    }
}
