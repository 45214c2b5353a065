import OutpostStorage
import OutpostWire

/// The item storage quota (`max-item-mb-per-user`): the bytes of item data and resources one
/// owner holds, checked before a file or text is stored (docs/reliability.md, "Budgets and
/// quotas"). Thumbnails are small and bounded on their own (`ThumbnailImage.maximumBytes`).
extension PortalController {
    /// Refuses `adding` bytes for `owner` past the quota with 413 in the ArcGIS error shape;
    /// `replacing` bytes of theirs go at the same time (an item's data replaced by `update`).
    func checkItemQuota(owner: String, adding bytes: Int64, replacing: Int64 = 0) throws {
        guard itemQuotaBytes > 0, bytes > 0 else { return }
        var held: Int64 = 0
        for item in try store.portal.items() where item.owner.caseInsensitiveCompare(owner) == .orderedSame {
            held += item.size
            for resource in try store.portal.resources(of: item.id) { held += resource.size }
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
