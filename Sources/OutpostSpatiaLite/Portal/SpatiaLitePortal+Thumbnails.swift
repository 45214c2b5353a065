import Foundation
import GRDB
import OutpostStorage
import OutpostWire

/// Item thumbnails: one file per item under `items/<id>/info/thumbnail/`, named in the
/// item's `thumbnail` field as ArcGIS does (`thumbnail/<name>`, below the item's `info/`).
extension SpatiaLitePortal {
    public func setThumbnail(item id: String, name: String, data: ItemResourceSource) throws -> PortalItem {
        let (thumbnail, path) = try files.thumbnailTarget(item: id, name: name)
        guard var item = try item(id: id) else { throw PortalFailure.itemNotFound(id) }
        let previous = try thumbnailPath(item: id)
        _ = try files.place(data, at: path)
        item.thumbnail = thumbnail
        try pool.write { db in
            try db.execute(sql: "UPDATE outpost_items SET thumbnail = ? WHERE id = ?", arguments: [item.thumbnail, id])
            guard db.changesCount == 1 else { throw PortalFailure.itemNotFound(id) }
        }
        // The old file goes after the commit (a crash leaves an unnamed file, never a missing one).
        if let previous, previous != path { try? FileManager.default.removeItem(atPath: previous) }
        return item
    }

    public func thumbnailPath(item id: String) throws -> String? {
        files.existingThumbnail(try item(id: id)?.thumbnail, item: id)
    }
}
