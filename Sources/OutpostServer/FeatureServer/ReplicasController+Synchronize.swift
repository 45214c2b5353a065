import Foundation
import Hummingbird
import Logging
import OutpostService
import OutpostStorage
import OutpostSync
import OutpostWire

/// `synchronizeReplica` (§5): apply the client's edits, then answer with the server's changes.
extension ReplicasController {
    func synchronize(_ p: RequestParameters, request: Request, context: OutpostRequestContext) async throws -> Response {
        let (store, files, limits, logger) = (self.store, self.files, syncLimits, self.logger)
        // The replica looked up and the edits read (an uploaded file too): on the blocking pool.
        let (sync, serviceName) = try await StoreCall.run { [self] in
            sweepResultFiles()
            let service = try store.service(named: try context.serviceName())
            let serviceName = service.definition.name
            let sync = try SynchronizeReplica(
                backend: store, asked: try SynchronizeReplicaRequest.parse(p), service: service, for: context.caller, limits: limits,
                editor: context.editContext.editor,
                checkEdits: { edits in try UploadsController.checkOwned(uploadsOf: edits, service: serviceName, store: store, context: context) })
            return (sync, serviceName)
        }
        let replica = sync.plan.replica
        let base = serviceURL(request, service: serviceName)

        if sync.plan.isAsync {
            let job = try await sync.submit(files, serviceURL: base, runner: runner, caller: context.jobCaller, logger: logger)
            let submission = ReplicaJobSubmission(statusURL: "\(base)/jobs/\(job.id)", replicaId: replica.id, replicaName: replica.name)
            return RESTResponse.json(submission.json, parameters: p)
        }

        if sync.plan.deliversByURL {
            let done = try await StoreCall.run { try sync.deliver(to: .file(files), serviceURL: base, logger: logger) }
            note(done, in: context)
            let answer = ReplicaFileAnswer(
                responseType: done.answer.responseType, replicaName: replica.name, replicaId: replica.id,
                generations: replica.generations(answered: done.answer.generations),
                url: done.fileName.map { "\(resultBase(request, service: serviceName))/\($0)" })
            return RESTResponse.json(answer.json, parameters: p)
        }
        let done = try await StoreCall.run { try sync.deliver(to: .memory, serviceURL: base, logger: logger) }
        note(done, in: context)
        return RESTResponse.json(done.bytes, parameters: p)
    }

    /// What the sync did, on the request's log line.
    private func note(_ done: SynchronizeReplica<Backend>.Delivered, in context: OutpostRequestContext) {
        context.record.note("edits", done.edits)
        context.record.note("conflicts", done.conflicts)
        context.record.note("changes", done.answer.changes)
        context.record.note(generations: done.answer.generations)
    }
}

extension ReplicasController {
    /// `replicas/<id>/conflicts`: every server value the replica's syncs overwrote unseen.
    func conflicts(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let serviceName = try context.serviceName()
        let id = FormURLEncoding.percentDecode(context.parameters.get("replica") ?? "")
        guard let canonical = GlobalID.normalize(id) else { throw Self.replicaNotFound(id) }
        let replica = try store.replicas.replica(service: serviceName, id: canonical)
        // The log outlives the replica: once it is unregistered, only admins read it.
        guard context.mayManage(replicaOwner: replica?.owner ?? "") else { throw Self.replicaNotFound(id) }
        let conflicts = try store.conflicts.conflicts(service: serviceName, replicaId: canonical)
        if conflicts.isEmpty, replica == nil {
            throw Self.replicaNotFound(id)
        }
        return RESTResponse.json(["replicaID": .string(canonical), "conflicts": .array(conflicts.map(\.json))], parameters: p)
    }
}
