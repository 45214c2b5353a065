import Foundation
import Hummingbird
import Logging
import OutpostService
import OutpostStorage
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
        let (store, files, quota, logger) = (self.store, self.files, resultQuotaBytes, self.logger)
        let creation = CreateReplica(backend: store)
        let planned = try await StoreCall.run { [self] in
            sweepResultFiles()
            let serviceName = try store.service(named: try context.serviceName()).definition.name
            let asked = try CreateReplicaRequest.parse(p)
            // Registering existing data writes no file: only exports count against the quota.
            if asked.registerExistingData == nil {
                try files.checkQuota(of: context.user?.name ?? "", quota: quota, registry: store.resultFiles)
            }
            return try creation.plan(asked, service: serviceName, for: context.caller)
        }
        let plan = planned.plan
        let serviceName = plan.definition.serviceName
        context.record.note(replicaId: plan.definition.id)

        // Registering existing data: no data, just an id and generations (§4.7).
        if plan.registration != nil {
            let registered = try await StoreCall.run { try creation.registerExistingData(planned) }
            let answer = ReplicaRegistrationAnswer(
                replicaName: registered.name, replicaId: registered.id, generations: registered.generations,
                syncModel: registered.syncModel, targetType: registered.targetType)
            logger.info("registered existing data as replica \(registered.id) (\(registered.name)) of \(serviceName)")
            return RESTResponse.json(answer.json, parameters: p)
        }

        let base = serviceURL(request, service: serviceName)
        if plan.isAsync {
            let job = try await creation.submitExport(
                planned, files: files, serviceURL: base, runner: runner, caller: context.jobCaller, logger: logger)
            let submission = ReplicaJobSubmission(
                statusURL: "\(base)/jobs/\(job.id)", replicaId: plan.definition.id,
                replicaName: plan.definition.name, targetType: plan.definition.targetType)
            return RESTResponse.json(submission.json, parameters: p)
        }

        if plan.deliversByURL {
            let (definition, name) = try await StoreCall.run { try creation.exportToFile(planned, files: files, serviceURL: base) }
            let answer = ReplicaFileAnswer(
                responseType: .data, replicaName: definition.name, replicaId: definition.id,
                generations: definition.generations, url: "\(resultBase(request, service: serviceName))/\(name)")
            return RESTResponse.json(answer.json, parameters: p)
        }

        // Embedded JSON: the document is the answer (§4.6 b), the replica registered first.
        let bytes = try await StoreCall.run { try creation.exportToMemory(planned, serviceURL: base) }
        return RESTResponse.json(bytes, parameters: p)
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
        let (name, path) = try await StoreCall.run { [self] in try resultFilePath(context) }
        return try await ResultFiles.response(serving: path, named: name, request: request, context: context)
    }

    /// The result file the path names and its published copy, if the caller may have it.
    private func resultFilePath(_ context: OutpostRequestContext) throws -> (name: String, path: String) {
        let serviceName = try store.service(named: try context.serviceName()).definition.name
        // Only below the service it was made for: a key reaching this service reaches its files alone.
        guard let name = context.parameters.get("file"), ResultFiles.isValidName(name),
            let owner = try store.resultFiles.resultFileOwner(name, under: serviceName), context.mayManage(replicaOwner: owner),
            let path = files.open(name)
        else {
            throw ArcGISError(
                kind: .notFound, message: "Result file not found.",
                details: [
                    "The file does not exist or has expired (files are kept \(Int(files.idleTime)) s after their last download) on service \(serviceName)."
                ])
        }
        return (name, path)
    }

    // MARK: Registry

    func list(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        // Each caller sees their own replicas; admins (and everyone with security off) all of them.
        let replicas = try ReplicaAdministration(backend: store).replicas(service: try context.serviceName(), for: context.caller)
        // `returnDetails=true` (Outpost's): each as `replicas/<id>` answers it, in one request
        // (the home's devices page); without it ArcGIS's plain list.
        if try p.bool("returnDetails", default: false) { return RESTResponse.json(.array(replicas.map(\.infoJSON)), parameters: p) }
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
