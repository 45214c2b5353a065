import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// `applyEdits` (layer and service), `addFeatures`, `updateFeatures`, `deleteFeatures`.
struct EditsController<Backend: OutpostBackend>: Sendable {
    let store: Backend

    /// Edits DEFAULT, or the named version `gdbVersion` names (versioned services).
    private func apply(_ edits: [LayerEdits], options: EditOptions, _ p: RequestParameters, context: OutpostRequestContext) throws -> EditOutcome {
        try UploadsController.checkOwned(uploadsOf: edits, service: try context.serviceName(), store: store, context: context)
        if let name = p.string("gdbVersion"), !name.isEmpty,
            let version = try VersionsController.visible(store, name, service: try context.serviceName(), context: context),
            !context.caller.mayEdit(version)
        {
            throw ArcGISError.forbidden
        }
        return try ApplyEdits(backend: store).apply(
            edits, options: options, service: try context.serviceName(), version: p.string("gdbVersion"), context: context.editContext
        ).noted(in: context)
    }

    func layerApplyEdits(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let options = try EditOptions.parse(p)
        var edits = LayerEdits(layerId: try context.layerId())
        if let attachments = try p.json("attachments") {
            edits.attachments = try AttachmentEdits.parse(attachments, useGlobalIds: options.useGlobalIds)
        }
        edits.adds = try LayerEdits.parseFeatures(try p.json("adds"), parameter: "adds")
        edits.updates = try LayerEdits.parseFeatures(try p.json("updates"), parameter: "updates")
        edits.deletes = try LayerEdits.parseDeletes(p.string("deletes"), useGlobalIds: options.useGlobalIds)
        let outcome = try apply([edits], options: options, p, context: context)
        var json = outcome.layers[0].json(includeLayerId: false)
        if options.returnEditMoment, case .object(var object) = json {
            object["editMoment"] = .int(outcome.editMoment)
            json = .object(object)
        }
        return RESTResponse.json(json, parameters: p)
    }

    func serviceApplyEdits(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let options = try EditOptions.parse(p)
        guard let json = try p.json("edits") else { throw ArcGISError.missingParameter("edits") }
        let edits = try LayerEdits.parseServiceEdits(json, useGlobalIds: options.useGlobalIds)
        let outcome = try apply(edits, options: options, p, context: context)
        let layers: [JSONValue] = outcome.layers.map { results in
            var object = results.json(includeLayerId: true).objectValue ?? [:]
            if options.returnEditMoment { object["editMoment"] = .int(outcome.editMoment) }
            return .object(object)
        }
        return RESTResponse.json(.array(layers), parameters: p)
    }

    func addFeatures(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let options = try EditOptions.parse(p)
        let edits = LayerEdits(
            layerId: try context.layerId(),
            adds: try LayerEdits.parseFeatures(try p.json("features"), parameter: "features"))
        let outcome = try apply([edits], options: options, p, context: context)
        return RESTResponse.json(["addResults": .array(outcome.layers[0].addResults.map(\.json))], parameters: p)
    }

    func updateFeatures(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let options = try EditOptions.parse(p)
        let edits = LayerEdits(
            layerId: try context.layerId(),
            updates: try LayerEdits.parseFeatures(try p.json("features"), parameter: "features"))
        let outcome = try apply([edits], options: options, p, context: context)
        return RESTResponse.json(["updateResults": .array(outcome.layers[0].updateResults.map(\.json))], parameters: p)
    }

    /// Deletes by `objectIds`, and/or by `where` and a spatial filter (evaluated inside the
    /// edit transaction, so the features deleted are the ones matching at that moment).
    func deleteFeatures(_ p: RequestParameters, context: OutpostRequestContext) throws -> Response {
        let options = try EditOptions.parse(p)
        var edits = LayerEdits(layerId: try context.layerId())
        edits.deletes = try LayerEdits.parseDeletes(p.string("objectIds"), useGlobalIds: false, parameter: "objectIds")
        if p.string("where") != nil || p.string("geometry") != nil {
            var query = try LayerQuery.parse(p)
            query.objectIds = nil
            edits.deleteQuery = query
        }
        guard !edits.deletes.isEmpty || edits.deleteQuery != nil else {
            throw ArcGISError.invalidParameter("objectIds", "give objectIds, where or geometry to choose the features to delete")
        }
        // The features to delete are found by a query read from the same parameters as `query`'s.
        let outcome = try StorageRefusal.naming(RefusedParameters.query) { try apply([edits], options: options, p, context: context) }
        return RESTResponse.json(["deleteResults": .array(outcome.layers[0].deleteResults.map(\.json))], parameters: p)
    }
}

extension EditOutcome {
    /// Puts the edit counts on the request's log line.
    func noted(in context: OutpostRequestContext) -> EditOutcome {
        let results = layers.flatMap(\.all)
        context.record.note("edits", results.count)
        context.record.note("failed", results.count(where: { !$0.success }))
        return self
    }
}

extension OutpostRequestContext {
    /// Who the request edits as: the signed-in user's portal name goes to editor-tracking
    /// fields (Creator, Editor); nil, written as NULL, when anonymous.
    var editContext: EditContext { EditContext(editor: user?.name) }
}
