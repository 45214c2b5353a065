import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// `…/<service>/VersionManagementServer`: the versions of a versioned service, after ArcGIS's
/// version management resource (list, create, info, reconcile with post, delete, conflicts).
struct VersionsController<Backend: OutpostBackend>: Sendable {
    let store: Backend

    private func versioned(_ context: OutpostRequestContext) throws -> String {
        let service = try store.service(named: try context.serviceName())
        guard service.definition.isVersioned else {
            throw ArcGISError(
                kind: .notFound, message: "Service not found.",
                details: ["\(service.definition.name) has no versioned data, so no VersionManagementServer."])
        }
        return service.definition.name
    }

    private func version(_ context: OutpostRequestContext) throws -> (String, DataVersion) {
        let service = try versioned(context)
        let id = FormURLEncoding.percentDecode(context.parameters.get("version") ?? "")
        // Another user's private version does not exist for the caller (as ArcGIS answers).
        guard let version = try store.versions.version(service: service, named: id), context.caller.maySee(version) else {
            throw VersionFailure.notFound(id)
        }
        return (service, version)
    }

    /// The version `gdbVersion` names, if any; another user's private one is not found.
    @discardableResult
    static func visible(_ store: Backend, _ name: String, service: String, context: OutpostRequestContext) throws -> DataVersion? {
        guard let version = try store.versions.version(service: service, named: name) else { return nil }
        guard context.caller.maySee(version) else { throw VersionFailure.notFound(name) }
        return version
    }

    func root(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let service = try versioned(context)
        return RESTResponse.json(
            [
                "defaultVersionName": .string(DataVersion.defaultName), "serviceName": .string(service),
                "capabilities": "versionManagement",
            ], parameters: p)
    }

    func list(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let service = try versioned(context)
        let visible = try store.versions.versions(service: service).filter { context.caller.maySee($0) }
        return RESTResponse.json(["versions": .array(visible.map(\.json))], parameters: p)
    }

    func create(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let service = try versioned(context)
        guard let name = p.string("versionName"), !name.isEmpty else { throw ArcGISError.missingParameter("versionName") }
        let access = p.string("accessPermission")?.lowercased() ?? "public"
        guard ["public", "protected", "private"].contains(access) else {
            throw ArcGISError.invalidParameter("accessPermission", "public, protected or private")
        }
        let created = try store.versions.createVersion(
            service: service, name: name, description: p.string("description") ?? "", access: access,
            owner: DataVersion.ownerPrefix(for: context.caller))
        return RESTResponse.json(["versionInfo": created.json, "success": true], parameters: p)
    }

    func info(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        RESTResponse.json(try version(context).1.json, parameters: p)
    }

    /// Reconcile with DEFAULT; `withPost=true` (the only mode: a reconcile here always
    /// decides conflicts for the version) posts the result.
    func reconcile(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let (service, version) = try version(context)
        guard !version.isDefault, version.replicaId == nil else {
            throw ArcGISError.invalidParameter("version", "DEFAULT and replica versions are reconciled by their own syncs")
        }
        guard context.caller.mayEdit(version) else { throw ArcGISError.forbidden }
        guard try p.bool("withPost", default: true) else {
            throw ArcGISError.invalidParameter("withPost", "a reconcile without post is not supported; send withPost=true")
        }
        let post = try store.versions.reconcileAndPost(service: service, version: version.name)
        return RESTResponse.json(
            [
                "success": true, "hasConflicts": .bool(post.conflicts > 0), "conflictCount": .int(Int64(post.conflicts)),
                "postedEdits": .int(Int64(post.posted)), "didPost": .bool(post.posted > 0),
                "moment": post.generation.map { .int($0) } ?? .null,
            ], parameters: p)
    }

    func conflicts(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let (service, version) = try version(context)
        let conflicts = try store.conflicts.conflicts(service: service, replicaId: version.guid ?? "")
        return RESTResponse.json(["versionName": .string(version.name), "conflicts": .array(conflicts.map(\.json))], parameters: p)
    }

    func delete(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let (service, version) = try version(context)
        guard context.caller.mayDelete(version) else { throw ArcGISError.forbidden }
        try store.versions.deleteVersion(service: service, named: version.name)
        return RESTResponse.json(["success": true], parameters: p)
    }
}
