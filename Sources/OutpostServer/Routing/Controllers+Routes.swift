import Hummingbird

/// Each controller's routes, relative to a service (`<service>/` or `<folder>/<service>/`).
extension ServicesController {
    func addServiceRoutes(to routes: ArcGISRoutes) {
        routes.viewers
            .read("FeatureServer", store: { _, c in try service(c.form.parameters, context: c) })
            .read("FeatureServer/layers", store: { _, c in try layers(c.form.parameters, context: c) })
            .read("FeatureServer/:layer", store: { _, c in try layer(c.form.parameters, context: c) })
    }
}

extension EditsController {
    func addRoutes(to routes: ArcGISRoutes) {
        routes.editors
            .change("FeatureServer/applyEdits", store: { _, c in try serviceApplyEdits(c.form.parameters, context: c) })
            .change("FeatureServer/:layer/applyEdits", store: { _, c in try layerApplyEdits(c.form.parameters, context: c) })
            .change("FeatureServer/:layer/addFeatures", store: { _, c in try addFeatures(c.form.parameters, context: c) })
            .change("FeatureServer/:layer/updateFeatures", store: { _, c in try updateFeatures(c.form.parameters, context: c) })
            .change("FeatureServer/:layer/deleteFeatures", store: { _, c in try deleteFeatures(c.form.parameters, context: c) })
    }
}

extension QueryController {
    func addRoutes(to routes: ArcGISRoutes) {
        routes.viewers
            .read("FeatureServer/:layer/query", store: { _, c in try query(c.form.parameters, context: c) })
            .read("FeatureServer/:layer/:oid", store: { _, c in try feature(c.form.parameters, context: c) })
    }
}

extension AttachmentsController {
    func addRoutes(to routes: ArcGISRoutes) {
        routes.viewers
            .read("FeatureServer/:layer/queryAttachments", store: { _, c in try query(c.form.parameters, context: c) })
            .read("FeatureServer/:layer/:oid/attachments", store: { _, c in try list(c.form.parameters, context: c) })
            .read("FeatureServer/:layer/:oid/attachments/:attachment") { _, c in try await download(c.form.parameters, context: c) }
        routes.editors
            .change("FeatureServer/:layer/:oid/addAttachment", store: { _, c in try add(c.form, context: c) })
            .change("FeatureServer/:layer/:oid/updateAttachment", store: { _, c in try update(c.form, context: c) })
            .change("FeatureServer/:layer/:oid/deleteAttachments", store: { _, c in try delete(c.form.parameters, context: c) })
    }
}

extension ReplicasController {
    func addRoutes(to routes: ArcGISRoutes) {
        // Replica operations answer GET too: restapi, a real client, sends them as GET (real-clients §5).
        routes.viewers
            .stateChanging("FeatureServer/createReplica", postOnly: routes.requireAuth) { r, c in
                try await create(c.form.parameters, request: r, context: c)
            }
            .change("FeatureServer/synchronizeReplica") { r, c in try await synchronize(c.form.parameters, request: r, context: c) }
            .stateChanging("FeatureServer/unRegisterReplica", postOnly: routes.requireAuth) { _, c in
                try await StoreCall.run { try unregister(c.form.parameters, context: c) }
            }
            .read("FeatureServer/replicas", store: { _, c in try list(c.form.parameters, context: c) })
            .read("FeatureServer/replicas/:replica", store: { _, c in try info(c.form.parameters, context: c) })
            .read("FeatureServer/replicas/:replica/conflicts", store: { _, c in try conflicts(c.form.parameters, context: c) })
            .read("FeatureServer/jobs/:job", store: { r, c in try jobStatus(c.form.parameters, request: r, context: c) })
            .read("FeatureServer/jobs/:job/status", store: { r, c in try jobStatus(c.form.parameters, request: r, context: c) })
            .read("replicafiles/:file") { r, c in try await resultFile(r, context: c) }
    }
}

extension UploadsController {
    func addRoutes(to routes: ArcGISRoutes) {
        routes.viewers
            .read("FeatureServer/uploads/:item", store: { _, c in try info(c.form.parameters, context: c) })
            .read("FeatureServer/uploads/:item/parts", store: { _, c in try parts(c.form.parameters, context: c) })
        routes.editors
            .change("FeatureServer/uploads/upload", store: { _, c in try upload(c.form, context: c) })
            .change("FeatureServer/uploads/register", store: { _, c in try register(c.form.parameters, context: c) })
            .change("FeatureServer/uploads/:item/uploadPart", store: { _, c in try uploadPart(c.form, context: c) })
            .change("FeatureServer/uploads/:item/commit", store: { _, c in try commit(c.form.parameters, context: c) })
            .change("FeatureServer/uploads/:item/delete", store: { _, c in try delete(c.form.parameters, context: c) })
    }
}

extension VersionsController {
    func addRoutes(to routes: ArcGISRoutes) {
        routes.viewers
            .read("VersionManagementServer", store: { _, c in try root(c.form.parameters, context: c) })
            .read("VersionManagementServer/versions", store: { _, c in try list(c.form.parameters, context: c) })
            .read("VersionManagementServer/versions/:version", store: { _, c in try info(c.form.parameters, context: c) })
            .read("VersionManagementServer/versions/:version/conflicts", store: { _, c in try conflicts(c.form.parameters, context: c) })
        routes.editors
            .change("VersionManagementServer/create", store: { _, c in try create(c.form.parameters, context: c) })
            .change("VersionManagementServer/versions/:version/reconcile", store: { _, c in try reconcile(c.form.parameters, context: c) })
            .change("VersionManagementServer/versions/:version/delete", store: { _, c in try delete(c.form.parameters, context: c) })
    }
}
