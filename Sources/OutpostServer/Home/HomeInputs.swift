import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OutpostWire

/// The text the home reads from a browser before any REST request, each through one public
/// entry so the fuzzer (`FuzzHome`) reaches the same code the pages run: a form's return page,
/// the flash cookie, a typed extent, a chosen layer or basemap, ids and names, the file name a
/// multipart part is given, a cookie in a `Cookie` header.
public enum HomeInputs {
    /// The home page a form may return to, or nil (never another site, path or `..`).
    public static func returnPage(_ text: String) -> String? { HomeRequest.homePath(text) }

    /// A flash cookie's kind (`done`, `failed`) and text, or nil.
    public static func flash(_ cookieValue: String) -> (kind: String, text: String)? {
        HomeFlash(cookieValue: cookieValue).map { ($0.kind.rawValue, $0.text) }
    }

    /// The cookie value a flash message is carried in.
    public static func flashCookie(done: Bool, text: String) -> String { HomeFlash(kind: done ? .done : .failed, text: text).cookieValue }

    /// A map area's extent typed as `west, south, east, north`.
    public static func extent(_ text: String) -> [Double]? { HomeController.extent(text) }

    /// A web map's chosen layer (`layer` true) or basemap, `path|title`: the path and title.
    public static func choice(_ text: String, layer: Bool) -> (path: String, title: String)? { HomeController.choice(text, layer: layer) }

    /// A path of this server's services from one of its URLs.
    public static func serverPath(_ url: String) -> String? { HomeController.serverPath(url) }

    public static func isServiceName(_ text: String) -> Bool { HomeController.isServiceName(text) }
    public static func isPlainId(_ text: String) -> Bool { HomeController.isPlainId(text) }

    /// A file name as a multipart part header carries it.
    public static func quoted(_ text: String) -> String { HomeUpload.quoted(text) }

    /// The value of cookie `name` in a `Cookie` header.
    public static func cookie(_ name: String, header: String) -> String? {
        var fields = HTTPFields()
        fields[.cookie] = header
        let head = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/", headerFields: fields)
        return HomeSession.cookie(name, of: Request(head: head, body: RequestBody(buffer: ByteBuffer())))
    }
}
