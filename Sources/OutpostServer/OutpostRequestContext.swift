import Hummingbird
import OutpostStore
import OutpostWire

/// The request context of every Outpost route.
public struct OutpostRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated caller (token security); nil when anonymous.
    public var user: ServerUser?
    /// What the request did, for its log line (set by `RequestLogMiddleware`).
    public var record = RequestRecord(id: "")

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
