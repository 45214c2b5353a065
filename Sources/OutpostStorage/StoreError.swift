import OutpostWire

/// Errors of the feature store. Each maps to one ArcGIS error envelope.
public enum StoreError: ArcGISErrorConvertible, Sendable, Equatable, CustomStringConvertible {
    case serviceNotFound(String)
    case layerNotFound(service: String, layer: Int)
    case serviceExists(String)
    /// A service that cannot go yet: replicas are registered with it, or its jobs run.
    case serviceInUse(service: String, replicas: Int, jobs: Int)
    case invalidName(String)
    case invalidSchema(String)
    case invalidFeature(String)
    case importFailed(String)
    case spatialite(String)
    /// The database cannot be reached, or is shutting down or starting: retry shortly.
    case unavailable(String)
    /// The database refused what the store asked: a fault whose details stay in the log.
    case database(String)

    public var description: String {
        switch self {
        case .serviceNotFound(let name): "Service '\(name)' not found."
        case .layerNotFound(let service, let layer): "Layer \(layer) of service '\(service)' not found."
        case .serviceExists(let name): "A service named '\(name)' already exists."
        case .serviceInUse(let service, let replicas, let jobs):
            replicas > 0
                ? "\(replicas) replica(s) are registered with service '\(service)': unregister them first (their devices would lose the edits they have not synced)."
                : "\(jobs) job(s) of service '\(service)' are running: delete it when they have finished."
        case .invalidName(let reason): "Invalid name: \(reason)"
        case .invalidSchema(let reason): "Invalid schema: \(reason)"
        case .invalidFeature(let reason): "Invalid feature: \(reason)"
        case .importFailed(let reason): "Import failed: \(reason)"
        case .spatialite(let reason): "SpatiaLite: \(reason)"
        case .unavailable(let reason): "Database unavailable: \(reason)"
        case .database(let reason): "Database: \(reason)"
        }
    }

    public var arcGISError: ArcGISError {
        switch self {
        case .serviceNotFound: ArcGISError(kind: .notFound, message: "Service not found.", details: [description])
        case .layerNotFound: ArcGISError(kind: .notFound, message: "Layer or table not found.", details: [description])
        case .serviceExists: ArcGISError(kind: .conflict, message: "Unable to complete operation.", details: [description])
        case .serviceInUse: ArcGISError(kind: .conflict, message: "Unable to delete the service.", details: [description])
        case .invalidName, .invalidSchema, .invalidFeature, .importFailed:
            ArcGISError(kind: .invalidData, message: "Unable to complete operation.", details: [description])
        case .spatialite: .internalError(description)
        case .unavailable:
            ArcGISError(
                kind: .unavailable, message: "Service unavailable.", details: ["The database cannot be reached at the moment; retry shortly."])
        case .database: .internalError("An unexpected error occurred; the server log has its details.")
        }
    }
}
