import Foundation
import Hummingbird
import Logging
import OutpostGeoPackage
import OutpostService
import OutpostStorage
import OutpostStore
import OutpostSync
import OutpostWire

/// `createReplica`, `replicas`, `replicas/<id>`, `unRegisterReplica`, job status and result
/// files (§4, §6, §7 of the sync reference).
struct ReplicasController<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let files: ResultFiles
    let runner: JobRunner
    /// Where clients reach this server: the origin of result and status URLs.
    let origin: ServerOrigin
    let syncLimits: SyncLimits
    /// Bytes of result files one user may hold before a new replica file is refused (0: none).
    let resultQuotaBytes: Int64
    let logger: Logger

    // MARK: createReplica

    /// Removes expired result files (at most once a minute) and what the store kept of them.
    func sweepResultFiles() {
        files.sweep(ifDue: true, of: store, logger: logger)
    }

    func create(_ p: RequestParameters, request: Request, context: OutpostRequestContext) async throws -> Response {
        sweepResultFiles()
        let service = try store.service(named: try context.serviceName())
        let serviceName = service.definition.name
        let (files, quota, store) = (self.files, resultQuotaBytes, self.store)
        let asked = try CreateReplicaRequest.parse(p)
        // Registering existing data writes no file: only exports count against the quota.
        if asked.registerExistingData == nil {
            try await StoreCall.run { try files.checkQuota(of: context.user?.name ?? "", quota: quota, registry: store.resultFiles) }
        }
        let creation = CreateReplica(backend: store)
        let planned = try creation.plan(asked, service: serviceName, for: context.caller)
        let plan = planned.plan

        // Registering existing data: no data, just an id and generations (§4.7).
        if plan.registration != nil {
            let registered = try creation.registerExistingData(planned)
            let answer = ReplicaRegistrationAnswer(
                replicaName: registered.name, replicaId: registered.id, generations: registered.generations,
                syncModel: registered.syncModel, targetType: registered.targetType)
            logger.info("registered existing data as replica \(registered.id) (\(registered.name)) of \(serviceName)")
            return RESTResponse.json(answer.json, parameters: p)
        }

        let base = serviceURL(request, service: serviceName)
        // A replica file keeps the service and layer resources as served; JSON replicas do not.
        let (serviceJSON, layerJSON) = plan.dataFormat == .sqlite ? try resources(service, of: plan.definition) : (.null, [:])
        let export = ExportWork(
            store: store, files: files, planned: planned, serviceURL: base, serviceJSON: serviceJSON, layerJSON: layerJSON,
            resultBase: resultBase(request, service: serviceName))

        if plan.isAsync {
            let jobId = "j" + GlobalID.make().filter(\.isHexDigit).lowercased()
            let job = JobRecord(
                id: jobId, serviceName: serviceName, kind: .createReplica, replicaId: plan.definition.id,
                replicaName: plan.definition.name, transportType: .url, responseType: .data, submittedAt: store.clock.milliseconds(),
                owner: plan.definition.owner)
            let ticket: JobRunner.Ticket
            do {
                ticket = try runner.admit(caller: context.jobCaller)
                do { try store.jobs.saveJob(job) } catch {
                    runner.cancel(ticket)
                    throw error
                }
            } catch {
                creation.release(planned)
                throw error
            }
            let logger = self.logger
            runner.submit(ticket) {
                await Self.run(job: job, export: export, logger: logger)
            }
            let submission = ReplicaJobSubmission(
                statusURL: "\(base)/jobs/\(jobId)", replicaId: plan.definition.id,
                replicaName: plan.definition.name, targetType: plan.definition.targetType)
            return RESTResponse.json(submission.json, parameters: p)
        }

        if plan.deliversByURL {
            let (definition, name) = try await JobRunner.blocking { try export.toFile(phase: { _ in }) }
            let answer = ReplicaFileAnswer(
                responseType: .data, replicaName: definition.name, replicaId: definition.id,
                generations: definition.generations, url: "\(export.resultBase)/\(name)")
            return RESTResponse.json(answer.json, parameters: p)
        }

        // Embedded JSON: the document is the answer (§4.6 b). Registered before answering, so
        // a client holding data always holds a registered replica.
        let bytes = try await JobRunner.blocking { try export.toMemory() }
        return RESTResponse.json(bytes, parameters: p)
    }

    /// Runs an asynchronous export and records each step of it.
    static func run(job: JobRecord, export: ExportWork<Backend>, logger: Logger) async {
        await runJob(job, store: export.store, logger: logger) { phase in
            let (_, name) = try export.toFile(phase: phase)
            logger.info("job \(job.id): replica \(job.replicaId) exported to \(name)")
            return name
        }
    }

    /// Runs a job's work on the blocking pool through the `JobRun` use case (every step
    /// saved); a failure that is a server fault is logged whole.
    static func runJob(
        _ job: JobRecord, store: Backend, logger: Logger,
        work: @escaping @Sendable (_ phase: (ServerJobStatus) -> Void) throws -> String
    ) async {
        let last = try? await JobRunner.blocking {
            JobRun(backend: store).run(job, saveFailed: { record, error in logger.error("job \(record.id): cannot save status: \(error)") }) {
                phase in
                do {
                    return try work(phase)
                } catch {
                    _ = RESTResponse.arcGISError(from: error, logger: logger)
                    throw error
                }
            }
        }
        if let last, last.status == .failed { logger.error("job \(job.id) failed: \(last.error.map(String.init(describing:)) ?? "")") }
    }

    // MARK: Jobs and result files

    func jobStatus(_ p: RequestParameters, request: Request, context: OutpostRequestContext) throws -> Response {
        let serviceName = try store.service(named: try context.serviceName()).definition.name
        guard let id = context.parameters.get("job"), let job = try store.jobs.job(id: id),
            ServiceDefinition.normalizedName(job.serviceName) == ServiceDefinition.normalizedName(serviceName)
        else {
            throw ArcGISError(
                kind: .notFound, message: "Job not found.",
                details: ["No job '\(context.parameters.get("job") ?? "")' on service \(serviceName)."])
        }
        guard context.mayManage(replicaOwner: job.owner) else { throw Authenticator.forbidden }
        let url = job.resultFile.map { "\(resultBase(request, service: serviceName))/\($0)" }
        return RESTResponse.json(job.statusJSON(resultURL: url), parameters: p)
    }

    func resultFile(_ request: Request, context: OutpostRequestContext) async throws -> Response {
        let serviceName = try store.service(named: try context.serviceName()).definition.name
        guard let name = context.parameters.get("file"), ResultFiles.isValidName(name),
            context.mayManage(replicaOwner: try store.resultFiles.resultFileOwner(name)),
            let path = files.open(name)
        else {
            throw ArcGISError(
                kind: .notFound, message: "Result file not found.",
                details: [
                    "The file does not exist or has expired (files are kept \(Int(files.idleTime)) s after their last download) on service \(serviceName)."
                ])
        }
        return try await ResultFiles.response(serving: path, named: name, request: request, context: context)
    }

    // MARK: Registry

    func list(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        // Each caller sees their own replicas; admins (and everyone with security off) all of them.
        let replicas = try ReplicaAdministration(backend: store).replicas(service: try context.serviceName(), for: context.caller)
        return RESTResponse.json(.array(replicas.map { ["replicaName": .string($0.name), "replicaID": .string($0.id)] }), parameters: p)
    }

    func info(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let serviceName = try context.serviceName()
        // Path parameters arrive percent-encoded (`%7B…%7D` for the braces clients send).
        let id = FormURLEncoding.percentDecode(context.parameters.get("replica") ?? "")
        guard let replica = try store.replicas.replica(service: serviceName, id: id), context.mayManage(replicaOwner: replica.owner) else {
            throw Self.replicaNotFound(id)
        }
        return RESTResponse.json(replica.infoJSON, parameters: p)
    }

    func unregister(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let serviceName = try store.service(named: try context.serviceName()).definition.name
        guard let id = p.string("replicaID") else { throw ArcGISError.missingParameter("replicaID") }
        let administration = ReplicaAdministration(backend: store)
        if id == "*" {
            // Everyone's for an admin (or with security off); otherwise the caller's own.
            let count = try administration.unregisterAll(service: serviceName, for: context.caller)
            logger.info("unregistered \(count) replicas of \(serviceName) for \(context.user?.name ?? "anyone")")
            return RESTResponse.json(["success": true], parameters: p)
        }
        try administration.unregister(service: serviceName, replicaId: id, for: context.caller)
        logger.info("unregistered replica \(id) of \(serviceName)")
        return RESTResponse.json(["success": true], parameters: p)
    }

    /// The service and layer resources as served, for a replica file or delta to keep.
    func resources(_ service: StoredService, of replica: ReplicaDefinition) throws -> (service: JSONValue, layers: [Int: JSONValue]) {
        try Self.resources(store, service, of: replica)
    }

    static func resources(
        _ store: Backend, _ service: StoredService, of replica: ReplicaDefinition
    ) throws -> (
        service: JSONValue, layers: [Int: JSONValue]
    ) {
        let serviceJSON = FeatureServiceMetadata.serviceJSON(service.definition, fullExtent: try store.features.fullExtent(of: service))
        var layerJSON: [Int: JSONValue] = [:]
        for layer in service.layers where replica.layer(id: layer.definition.id) != nil {
            let state = FeatureServiceMetadata.LayerState(
                extent: try store.features.extent(of: layer), lastEditDate: try store.features.lastEditDate(of: layer))
            layerJSON[layer.definition.id] = FeatureServiceMetadata.layerJSON(layer.definition, service: service.definition, state: state)
        }
        return (serviceJSON, layerJSON)
    }

    static func replicaNotFound(_ id: String) -> ArcGISError { .replicaNotFound(id) }

    // MARK: URLs

    /// `<origin>/arcgis/rest/services/<service>/FeatureServer`: the public URL, else the host
    /// the client used (so links work through any name or port it reached us by).
    func serviceURL(_ request: Request, service: String) -> String {
        "\(origin.of(request))/arcgis/rest/services/\(service)/FeatureServer"
    }

    func resultBase(_ request: Request, service: String) -> String {
        "\(origin.of(request))/arcgis/rest/services/\(service)/replicafiles"
    }
}

/// One replica export: snapshot, write, register, publish.
struct ExportWork<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let files: ResultFiles
    let planned: CreateReplica<Backend>.Planned
    let serviceURL: String
    let serviceJSON: JSONValue
    let layerJSON: [Int: JSONValue]
    let resultBase: String

    var plan: ReplicaPlan { planned.plan }

    /// Writes the result file, registers the replica (`CreateReplica.export`), then publishes the file.
    func toFile(phase: (ServerJobStatus) -> Void) throws -> (ReplicaDefinition, String) {
        let name = ResultFiles.newName(extension: plan.dataFormat.fileExtension)
        let temporary = try files.temporaryPath(for: name)
        do {
            let definition = try CreateReplica(backend: store).export(planned) { plan in
                switch plan.dataFormat {
                case .sqlite:
                    return try store.sync.exportReplica(
                        plan, to: .geoPackage(path: temporary), serviceURL: serviceURL, serviceJSON: serviceJSON, layerJSON: layerJSON,
                        phase: phase
                    ).0
                case .json:
                    _ = FileManager.default.createFile(atPath: temporary, contents: nil)
                    guard let handle = FileHandle(forWritingAtPath: temporary) else { throw ArcGISError.internalError("cannot write \(temporary)") }
                    defer { try? handle.close() }
                    let (definition, _) = try store.sync.exportReplica(
                        plan, to: .records(ReplicaJSONWriter(write: { try handle.write(contentsOf: $0) }, attachmentURL: attachmentURLs)),
                        serviceURL: serviceURL, serviceJSON: serviceJSON, layerJSON: layerJSON, phase: phase)
                    try handle.synchronize()
                    return definition
                }
            }
            // Another replica took the name meanwhile: the file says the name it registered under.
            if definition.name != plan.definition.name, plan.dataFormat == .sqlite {
                try ReplicaFile.setReplicaName(definition.name, in: temporary)
            }
            try store.resultFiles.recordResultFile(name, owner: plan.definition.owner)
            try files.publish(name)
            return (definition, name)
        } catch {
            files.discard(name)
            throw error
        }
    }

    /// The embedded JSON document, registered before it is returned.
    func toMemory() throws -> [UInt8] {
        var bytes: [UInt8] = []
        _ = try CreateReplica(backend: store).export(planned) { plan in
            try store.sync.exportReplica(
                plan, to: .records(ReplicaJSONWriter(write: { bytes += $0 }, attachmentURL: attachmentURLs)),
                serviceURL: serviceURL, serviceJSON: serviceJSON, layerJSON: layerJSON, phase: { _ in }
            ).0
        }
        return bytes
    }

    /// Attachment links for JSON replicas asked with `returnAttachmentsDataByUrl` (the default).
    private var attachmentURLs: ((Int, Int64, Int64) -> String)? {
        guard plan.returnAttachmentsDataByUrl else { return nil }
        let base = serviceURL
        return { layer, objectId, attachmentId in "\(base)/\(layer)/\(objectId)/attachments/\(attachmentId)" }
    }
}
