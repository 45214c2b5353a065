import OutpostWire

public enum VersionFailure: ArcGISErrorConvertible, Equatable, CustomStringConvertible {
    case notVersioned(String)
    case notFound(String)
    case exists(String)
    case invalidName(String)
    case isDefault

    public var description: String {
        switch self {
        case .notVersioned(let service): "service \(service) is not versioned"
        case .notFound(let name): "no version '\(name)'"
        case .exists(let name): "a version '\(name)' exists already"
        case .invalidName(let name): "'\(name)' is not a valid version name (letters, digits, '_', at most 62)"
        case .isDefault: "DEFAULT cannot be changed this way"
        }
    }

    public var arcGISError: ArcGISError {
        if case .notFound = self { return ArcGISError(kind: .notFound, message: "Version not found.", details: [description]) }
        return ArcGISError(kind: .invalidParameter, message: "Unable to complete operation.", details: [description])
    }
}
