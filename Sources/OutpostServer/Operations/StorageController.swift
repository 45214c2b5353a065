import Hummingbird
import OutpostStorage
import OutpostWire

/// Storage per item owner at `/arcgis/rest/admin/storage` (docs/operations.md, "Storage"): each
/// owner's items and the bytes their data, resources and thumbnails hold, as the portal counts
/// them (`PortalItem.size`), largest first. An administrator's: one pass over the items.
struct StorageController<Backend: OutpostBackend>: Sendable {
    let store: Backend

    func addRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes.read("rest/admin/storage", store: { _, c in RESTResponse.json(try usage(), parameters: c.form.parameters) })
    }

    func usage() throws -> JSONValue {
        var totals: [String: (items: Int64, bytes: Int64)] = [:]
        for item in try store.portal.items() {
            totals[item.owner, default: (0, 0)].items += 1
            totals[item.owner, default: (0, 0)].bytes += max(0, item.size)
        }
        let owners = totals.sorted { $0.value.bytes != $1.value.bytes ? $0.value.bytes > $1.value.bytes : $0.key < $1.key }
            .map { JSONValue.object(["owner": .string($0.key), "items": .int($0.value.items), "bytes": .int($0.value.bytes)]) }
        return ["owners": .array(owners)]
    }
}
