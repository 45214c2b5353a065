/// The replica requests as form fields: what a client sends, in the names and spellings the
/// parsers read (`parse(RequestParameters(x.formFields)) == x`, `ReplicaAnswersTests`).
extension CreateReplicaRequest {
    public var formFields: [(String, String)] {
        var fields: [(String, String)] = []
        if let replicaName { fields.append(("replicaName", replicaName)) }
        if let layers { fields.append(("layers", layers.map(String.init).joined(separator: ","))) }
        if !layerQueries.isEmpty {
            var queries = JSONObject()
            for id in layerQueries.keys.sorted() {
                let query = layerQueries[id]!
                var entry = JSONObject()
                if let option = query.queryOption { entry["queryOption"] = .string(option.rawValue) }
                if let useGeometry = query.useGeometry { entry["useGeometry"] = .bool(useGeometry) }
                if let includeRelated = query.includeRelated { entry["includeRelated"] = .bool(includeRelated) }
                if let whereClause = query.whereClause { entry["where"] = .string(whereClause) }
                queries["\(id)"] = .object(entry)
            }
            fields.append(("layerQueries", JSONValue.object(queries).jsonText))
        }
        if let geometry {
            fields.append(("geometry", geometry.text))
            if let type = geometry.geometryType { fields.append(("geometryType", type.rawValue)) }
            if let inSR = geometry.inSR { fields.append(("inSR", String(inSR.wkid))) }
        }
        if let replicaSR { fields.append(("replicaSR", String(replicaSR.wkid))) }
        fields += [
            ("transportType", transportType.rawValue), ("returnAttachments", String(returnAttachments)),
            ("returnAttachmentsDataByUrl", String(returnAttachmentsDataByUrl)), ("async", String(isAsync)),
            ("targetType", targetType.rawValue), ("dataFormat", dataFormat.rawValue),
        ]
        if let syncModel { fields.append(("syncModel", syncModel.rawValue)) }
        if let syncDirection { fields.append(("syncDirection", syncDirection.rawValue)) }
        if let attachmentsSyncDirection { fields.append(("attachmentsSyncDirection", attachmentsSyncDirection.rawValue)) }
        if let register = registerExistingData {
            var options: JSONObject = ["registerExistingData": true]
            if let reference = register.referenceReplicaId { options["refReplicaId"] = .string(reference) }
            if let generation = register.replicaServerGen { options["replicaServerGen"] = .int(generation) }
            if !register.layerServerGens.isEmpty {
                options["layerServerGens"] = .array(
                    register.layerServerGens.keys.sorted().map {
                        ["id": .int(Int64($0)), "serverGen": .int(register.layerServerGens[$0]!)]
                    })
            }
            fields.append(("replicaOptions", JSONValue.object(options).jsonText))
        }
        if syncDataOptions != 0 { fields.append(("syncDataOptions", String(syncDataOptions))) }
        return fields
    }
}

extension SynchronizeReplicaRequest {
    public var formFields: [(String, String)] {
        var fields: [(String, String)] = [("replicaID", replicaId)]
        if let replicaServerGen { fields.append(("replicaServerGen", String(replicaServerGen))) }
        switch syncLayers {
        case .absent: break
        case .notALayerList(let text): fields.append(("syncLayers", text))
        case .layers(let layers):
            fields.append(
                (
                    "syncLayers",
                    JSONValue.array(
                        layers.map { layer in
                            var entry: JSONObject = ["id": .int(Int64(layer.layerId))]
                            if let generation = layer.serverGen { entry["serverGen"] = .int(generation) }
                            if let direction = layer.syncDirection { entry["syncDirection"] = .string(direction.rawValue) }
                            return .object(entry)
                        }
                    ).jsonText
                ))
        }
        if let syncDirection { fields.append(("syncDirection", syncDirection.rawValue)) }
        switch upload {
        case nil: break
        case .inline(_, let text)?: fields.append(("edits", text))
        case .uploadedFile(let itemID, let format)?: fields += [("editsUploadID", itemID), ("editsUploadFormat", format.rawValue)]
        }
        fields += [
            ("dataFormat", dataFormat.rawValue), ("transportType", transportType.rawValue), ("async", String(isAsync)),
            ("returnIdsForAdds", String(returnIdsForAdds)), ("rollbackOnFailure", String(rollbackOnFailure)),
            ("closeReplica", String(closeReplica)), ("returnAttachmentsDataByUrl", String(returnAttachmentsDataByUrl)),
        ]
        return fields
    }
}
