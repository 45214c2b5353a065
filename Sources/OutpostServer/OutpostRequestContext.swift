import Hummingbird
import OutpostWire

/// The request context of every Outpost route.
public struct OutpostRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// Form and multipart bodies up to this size are accepted (Hummingbird's default is 2 MiB).
    public var maxUploadSize: Int { 64 * 1024 * 1024 }
}
