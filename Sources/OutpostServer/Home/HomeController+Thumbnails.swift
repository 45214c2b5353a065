import Foundation
import Hummingbird
import OutpostHomeInputs
import OutpostWire

/// Items' thumbnails on the home's pages: the REST API reads no cookie, so an `<img>` pointing
/// at the portal's `info/thumbnail/<name>` shows nothing of a private item. `thumbnail?id=&name=`
/// asks the portal as the signed-in user and passes the picture on.
extension HomeController {
    /// Where a page's `<img>` finds item `id`'s thumbnail `name` (`thumbnail/<file>`).
    static func thumbnailSource(id: String, name: String) -> String {
        "/arcgis/home/thumbnail?id=\(HTMLText.query(id))&name=\(HTMLText.query(name))"
    }

    func thumbnailImage(_ home: HomeRequest) async throws -> Response {
        let id = home.form.string("id") ?? ""
        let name = home.form.string("name") ?? ""
        let file = name.hasPrefix("thumbnail/") ? String(name.dropFirst("thumbnail/".count)) : ""
        guard HomeInputs.isPlainId(id), (1...200).contains(file.utf8.count), !file.hasPrefix("."),
            file.utf8.allSatisfy({
                [UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ".")].contains($0) || (48...57).contains($0)
                    || (65...90).contains($0) || (97...122).contains($0)
            })
        else { return Response(status: .notFound) }
        return try await home.gateway.passThrough(
            HomeRequest.portal + "/content/items/\(id)/info/thumbnail/\(HTMLText.query(file))", session: home.session, original: home.request,
            context: home.context)
    }
}
