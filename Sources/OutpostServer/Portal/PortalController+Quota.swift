import Foundation
import OutpostStorage
import OutpostWire
import Synchronization

/// The item storage quota (`max-item-mb-per-user`): the bytes one owner's items hold — data,
/// resources, thumbnails and descriptions — checked before anything is stored
/// (docs/reliability.md, "Budgets and quotas"). The check and the write it admits run under
/// one lock (`withItemQuota`), so concurrent requests cannot pass it together.
extension PortalController {
    /// Runs `body` (a check and the write it admits) while no other quota check runs in this process.
    func withItemQuota<T>(_ body: () throws -> T) throws -> T {
        try portalQuotaLock.withLock { _ in try body() }
    }

    /// A thumbnail part's bytes (0 without one).
    static func size(of thumbnail: (name: String, path: String)?) -> Int64 {
        guard let thumbnail else { return 0 }
        return ((try? FileManager.default.attributesOfItem(atPath: thumbnail.path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// What an item's description takes: its texts and properties.
    static func describedBytes(_ item: PortalItem) -> Int64 {
        let texts = [item.title, item.snippet, item.itemDescription, item.url ?? "", item.spatialReference] + item.tags + item.typeKeywords
        return Int64(texts.reduce(0) { $0 + $1.utf8.count } + item.properties.jsonText.utf8.count)
    }

    /// Refuses `adding` bytes for `owner` past the quota with 413 in the ArcGIS error shape;
    /// `replacing` bytes of theirs go at the same time (an item's data replaced by `update`).
    func checkItemQuota(owner: String, adding bytes: Int64, replacing: Int64 = 0) throws {
        guard itemQuotaBytes > 0, bytes > 0 else { return }
        var held: Int64 = 0
        for item in try store.portal.items() where item.owner.caseInsensitiveCompare(owner) == .orderedSame {
            held += item.size + Self.describedBytes(item)
            for resource in try store.portal.resources(of: item.id) { held += resource.size }
            if let thumbnail = try store.portal.thumbnailPath(item: item.id) {
                held += ((try? FileManager.default.attributesOfItem(atPath: thumbnail))?[.size] as? NSNumber)?.int64Value ?? 0
            }
        }
        guard held - replacing + bytes <= itemQuotaBytes else {
            throw ArcGISError(
                kind: .tooLarge, message: "Item storage quota exceeded.",
                details: [
                    "\(owner) holds \(held / 1_048_576) MiB of item data and resources; \(bytes / 1_048_576) MiB more would pass the quota of \(itemQuotaBytes / 1_048_576) MiB."
                ])
        }
    }
}

/// One lock for every portal controller of the process (generic types have no stored statics).
private let portalQuotaLock = Mutex<Void>(())
