import Foundation
import OutpostStorage
import OutpostTestSupport
import OutpostWire

@testable import OutpostServer

/// The matrix's requests for the portal's `publish`: a fresh GeoJSON file item of the owner's,
/// private or shared with the organisation, published under a new name. An allowed publish
/// makes its service (the job is polled for a bounded count); a refused one makes none.
extension MatrixCase {
    static var publishCases: [MatrixCase] {
        [("private", false), ("org", false), ("private", true)].map { access, inFolder in
            .post(
                "content/users/:user/publish", inFolder ? "\(access), in a folder" : access, subject: item(access),
                make: { s, _ in
                    let file = TestFolders.file("point.geojson")
                    try
                        #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"A"},"geometry":{"type":"Point","coordinates":[13.4,52.5]}}]}"#
                        .write(toFile: file, atomically: true, encoding: .utf8)
                    let item = PortalItem(
                        id: PortalNames.newId(), owner: AuthorizationSession.owner, title: s.unique("upload"), type: "GeoJson",
                        access: ItemAccess(rawValue: access) ?? .private, created: s.store.clock.milliseconds())
                    try s.store.portal.addItem(item, data: .file(name: "point.geojson", path: file))
                    let name = s.unique("Published").filter { $0.isLetter || $0.isNumber }
                    return Probe(
                        path: "\(portal)/content/users/\(eve)/\(inFolder ? "\(s.objects.folderId)/" : "")publish",
                        fields: [("f", "json"), ("itemID", item.id), ("filetype", "geojson"), ("publishParameters", #"{"name":"\#(name)"}"#)],
                        object: name)
                },
                happened: { s, p in
                    for _ in 0..<60 {
                        if try s.store.catalog().services.contains(where: { $0.definition.name == p.object }) { return true }
                        try await Task.sleep(for: .milliseconds(25))
                    }
                    return false
                })
        }
    }

    /// `content/features/analyze` of a fresh CSV item of the owner's: an allowed caller gets
    /// its columns (a refused one the row's refusal).
    static var analyzeCases: [MatrixCase] {
        ["private", "org"].map { access in
            .post(
                "content/features/analyze", access, subject: item(access),
                make: { s, _ in
                    let file = TestFolders.file("points.csv")
                    try "name,longitude,latitude\nA,13.4,52.5\n".write(toFile: file, atomically: true, encoding: .utf8)
                    let item = PortalItem(
                        id: PortalNames.newId(), owner: AuthorizationSession.owner, title: s.unique("points"), type: "CSV",
                        access: ItemAccess(rawValue: access) ?? .private, created: s.store.clock.milliseconds())
                    try s.store.portal.addItem(item, data: .file(name: "points.csv", path: file))
                    return Probe(path: "\(portal)/content/features/analyze", fields: [("f", "json"), ("itemid", item.id), ("fileType", "csv")])
                })
        }
    }
}
