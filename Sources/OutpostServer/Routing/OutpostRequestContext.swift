import Hummingbird
import NIOCore
import NIOSSL
import OutpostStorage
import OutpostWire

/// The request context of every Outpost route.
public struct OutpostRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The authenticated caller (token security); nil when anonymous.
    public var user: ServerUser?
    /// What the request did, for its log line (set by `RequestLogMiddleware`).
    public var record = RequestRecord(id: "")
    /// The form `FormAdmissionMiddleware` received: parameters from the query and the body,
    /// and file parts spooled to disk.
    var form = ReceivedForm(parameters: RequestParameters(), files: [])
    /// Shared with the outer layers (`RequestExchange`).
    public let exchange = RequestExchange()
    /// The connection, to stop reading a body that is refused (see `stopReadingBody`).
    let channel: any Channel
    /// False for the home's sub-requests (`HomeGateway`): they borrow the page's connection,
    /// which a refused sub-request must leave open.
    var ownsConnection = true

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The caller's address, for per-address limits ("" when unknown).
    var remoteAddress: String { channel.remoteAddress?.ipAddress ?? "" }

    /// A refused request's body is not read to its end: the connection's input is closed, so
    /// the server neither stores nor drains what the client goes on sending; the answer is
    /// still written, then the connection closes.
    func stopReadingBody() {
        guard ownsConnection else { return }
        let channel = self.channel
        channel.eventLoop.execute {
            // NIOSSL refuses a half close (`operationUnsupported`), which left TLS bodies read
            // to their end: below its handler the socket takes one, and answers still go out
            // through it.
            if let tls = try? channel.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self) {
                tls.close(mode: .input, promise: nil)
            } else {
                channel.close(mode: .input, promise: nil)
            }
        }
    }
}
