import Hummingbird
import OutpostStorage
import OutpostWire

/// The routes of one resource, by the least role each needs under token security: a
/// controller adds its routes here (`addRoutes(to:)`), and `buildRouter` mounts both
/// collections under each prefix they serve, behind the admission for their role.
struct ArcGISRoutes {
    let viewers = RouteCollection(context: OutpostRequestContext.self)
    let editors = RouteCollection(context: OutpostRequestContext.self)
    /// Token security is on: state-changing operations refuse GET.
    let requireAuth: Bool
}

extension RouteCollection where Context == OutpostRequestContext {
    typealias Handler = @Sendable (Request, Context) async throws -> Response
    typealias StoreHandler = @Sendable (Request, Context) throws -> Response

    static var postOnly: ArcGISError {
        ArcGISError(kind: .methodNotAllowed, message: "Method not allowed.", details: ["This operation is only supported via POST."])
    }

    /// A resource or an operation that reads: GET and POST alike (the ArcGIS API for Python
    /// POSTs metadata requests).
    @discardableResult func read(_ path: RouterPath, _ handler: @escaping Handler) -> Self {
        get(path, use: handler)
        return post(path, use: handler)
    }

    /// The same for a handler that calls the store: run off the cooperative pool.
    @discardableResult func read(_ path: RouterPath, store handler: @escaping StoreHandler) -> Self {
        read(path) { request, context in try await StoreCall.run { try handler(request, context) } }
    }

    /// An operation that changes data: POST only, as on ArcGIS Server (a GET answers 405,
    /// once admitted).
    @discardableResult func change(_ path: RouterPath, _ handler: @escaping Handler) -> Self {
        get(path) { _, _ -> Response in throw Self.postOnly }
        return post(path, use: handler)
    }

    @discardableResult func change(_ path: RouterPath, store handler: @escaping StoreHandler) -> Self {
        change(path) { request, context in try await StoreCall.run { try handler(request, context) } }
    }

    /// An operation that changes state but that clients send as GET (restapi sends
    /// createReplica and unRegisterReplica so): with token security on, POST only, so a link
    /// or an image cannot trigger it with a token in its URL.
    @discardableResult func stateChanging(_ path: RouterPath, postOnly: Bool, _ handler: @escaping Handler) -> Self {
        postOnly ? change(path, handler) : read(path, handler)
    }
}
