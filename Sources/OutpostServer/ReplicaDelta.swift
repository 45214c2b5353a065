import OutpostStore
import OutpostSync
import OutpostWire

/// GeoPackage deltas (`editsUploadFormat=sqlite`, `dataFormat=sqlite` on sync).
enum ReplicaDelta {
    static func read(path: String, parameter: String) throws -> (edits: [LayerEdits], fingerprint: [UInt8]) {
        throw ArcGISError.invalidParameter(parameter, "GeoPackage deltas are not accepted yet; send editsUploadFormat=json")
    }
}

extension FeatureStore {
    func writeSyncDelta(_ plan: SyncPlan, upload: SyncUploadOutcome?, path: String, serviceURL: String) throws -> SyncAnswerSummary {
        throw ArcGISError.invalidParameter("dataFormat", "sync answers as GeoPackage deltas are not available yet; use dataFormat=json")
    }
}
