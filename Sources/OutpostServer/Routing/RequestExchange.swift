import NIOConcurrencyHelpers
import OutpostWire

/// What the inner layers of a request tell the outer ones after the fact: the form the
/// admission middleware received (the envelope and the HTML directory render with its `f`
/// and `callback`), and whether the body was read. The request context is a value passed
/// inwards; this one box, made with the context, is shared by every layer of one request.
public final class RequestExchange: Sendable {
    private let state = NIOLockedValueBox((parameters: RequestParameters(), bodyRead: false))

    public init() {}

    var parameters: RequestParameters {
        get { state.withLockedValue { $0.parameters } }
        set { state.withLockedValue { $0.parameters = newValue } }
    }

    var bodyRead: Bool {
        get { state.withLockedValue { $0.bodyRead } }
        set { state.withLockedValue { $0.bodyRead = newValue } }
    }
}
