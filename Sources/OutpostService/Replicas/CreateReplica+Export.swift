import Foundation
import Logging
import OutpostGeoPackage
import OutpostStorage
import OutpostSync
import OutpostWire

/// Where a replica's export goes: a published result file (by URL, a job, a map area's
/// package), the answer itself (embedded JSON), or a job of the runner.
extension CreateReplica {
    /// Writes the replica to a new result file (a GeoPackage, or a JSON document), registers
    /// it (`export`), then publishes the file; returns the replica as registered and the file's
    /// name. `serviceURL` is the FeatureServer URL the replica names (its attachments' links).
    public func exportToFile(
        _ planned: Planned, files: ResultFiles, serviceURL: String, phase: (ServerJobStatus) -> Void = { _ in }
    ) throws -> (replica: ReplicaDefinition, fileName: String) {
        let plan = planned.plan
        let name = ResultFiles.newName(extension: plan.dataFormat.fileExtension)
        do {
            let definition = try export(planned) { plan in
                let temporary = try files.temporaryPath(for: name)
                let resources = try resources(kept: plan)
                switch plan.dataFormat {
                case .sqlite:
                    return try backend.sync.exportReplica(
                        plan, to: .geoPackage(path: temporary), serviceURL: serviceURL, serviceJSON: resources.service,
                        layerJSON: resources.layers, phase: phase
                    ).0
                case .json:
                    _ = FileManager.default.createFile(atPath: temporary, contents: nil)
                    guard let handle = FileHandle(forWritingAtPath: temporary) else { throw ArcGISError.internalError("cannot write \(temporary)") }
                    defer { try? handle.close() }
                    let (definition, _) = try backend.sync.exportReplica(
                        plan,
                        to: .records(
                            ReplicaJSONWriter(write: { try handle.write(contentsOf: $0) }, attachmentURL: Self.attachmentURLs(plan, serviceURL))),
                        serviceURL: serviceURL, serviceJSON: resources.service, layerJSON: resources.layers, phase: phase)
                    try handle.synchronize()
                    return definition
                }
            }
            // Another replica took the name meanwhile: the file says the name it registered under.
            if definition.name != plan.definition.name, plan.dataFormat == .sqlite {
                try ReplicaFile.setReplicaName(definition.name, in: try files.temporaryPath(for: name))
            }
            try backend.resultFiles.recordResultFile(name, owner: plan.definition.owner, service: plan.definition.serviceName)
            try files.publish(name)
            return (definition, name)
        } catch {
            files.discard(name)
            throw error
        }
    }

    /// The embedded JSON document (`transportType=esriTransportTypeEmbedded`), the replica
    /// registered before it is returned, so a client holding data always holds a registered replica.
    public func exportToMemory(_ planned: Planned, serviceURL: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        _ = try export(planned) { plan in
            let resources = try resources(kept: plan)
            return try backend.sync.exportReplica(
                plan, to: .records(ReplicaJSONWriter(write: { bytes += $0 }, attachmentURL: Self.attachmentURLs(plan, serviceURL))),
                serviceURL: serviceURL, serviceJSON: resources.service, layerJSON: resources.layers, phase: { _ in }
            ).0
        }
        return bytes
    }

    /// Runs the export to a result file as a job of `runner` for `caller` (whose share of the
    /// queue it takes); returns the job as submitted. Refused (429) or not saved, the name the
    /// plan holds is released.
    public func submitExport(
        _ planned: Planned, files: ResultFiles, serviceURL: String, runner: JobRunner, caller: String, logger: Logger
    ) async throws -> JobRecord {
        let definition = planned.plan.definition
        let job = JobRecord(
            id: JobRunner.newJobId(), serviceName: definition.serviceName, kind: .createReplica, replicaId: definition.id,
            replicaName: definition.name, transportType: .url, responseType: .data, submittedAt: backend.clock.milliseconds(),
            owner: definition.owner)
        do {
            try await runner.submit(job, for: caller, in: backend) { steps in
                let (_, name) = try exportToFile(planned, files: files, serviceURL: serviceURL, phase: steps.phase)
                logger.info("job \(job.id): replica \(job.replicaId) exported to \(name)")
                return .succeeded(resultFile: name)
            }
        } catch {
            release(planned)
            throw error
        }
        return job
    }

    /// The service and layer resources a replica file keeps, as served when it is written.
    private func resources(kept plan: ReplicaPlan) throws -> ServiceResources {
        guard plan.dataFormat == .sqlite else { return .none }
        return try ServiceResources(of: try backend.service(named: plan.definition.serviceName), for: plan.definition, in: backend)
    }

    /// Attachment links for JSON replicas asked with `returnAttachmentsDataByUrl` (the default).
    static func attachmentURLs(_ plan: ReplicaPlan, _ serviceURL: String) -> ((Int, Int64, Int64) -> String)? {
        guard plan.returnAttachmentsDataByUrl else { return nil }
        return { layer, objectId, attachmentId in "\(serviceURL)/\(layer)/\(objectId)/attachments/\(attachmentId)" }
    }
}
