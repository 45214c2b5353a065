import Hummingbird
import OutpostWire

/// The request context of every Outpost route.
public struct OutpostRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
