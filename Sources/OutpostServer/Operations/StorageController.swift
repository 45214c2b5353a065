import Hummingbird
import OutpostStorage
import OutpostWire

/// Storage per item owner at `/arcgis/rest/admin/storage` (docs/operations.md, "Storage"): each
/// owner's items and the bytes their data, resources and thumbnails hold, as the portal counts
/// them (`PortalItem.size`), largest first, from one pass over the items; per service at
/// `…/storage/services`. An administrator's.
struct StorageController<Backend: OutpostBackend>: Sendable {
    let store: Backend

    func addRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        routes.read("rest/admin/storage", store: { _, c in RESTResponse.json(try usage(), parameters: c.form.parameters) })
        routes.read(
            "rest/admin/storage/services",
            store: { _, c in
                RESTResponse.json(["services": .array(try serviceUsage())], parameters: c.form.parameters)
            })
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

    /// Each service's bytes on disk (`rest/admin/storage/services`): a feature service's tables
    /// with their indexes (attachment files in the blob store are not counted), a tile
    /// service's file; largest first. Measured only when asked: on SpatiaLite it reads every
    /// page of the database, which the organisation page must not pay on every load.
    func serviceUsage() throws -> [JSONValue] {
        let services = try store.catalog().services
        let tables = try store.maintenance.tableBytes(services.flatMap { $0.layers.flatMap(\.storageTables) })
        var usage: [(name: String, type: String, bytes: Int64)] = services.map { service in
            (service.definition.name, "FeatureServer", service.layers.flatMap(\.storageTables).reduce(0) { $0 + (tables[$1] ?? 0) })
        }
        for set in try store.tiles.tileSets() { usage.append((set.name, set.kind.serviceKind, try store.tiles.storedBytes(set: set.name))) }
        return usage.sorted { $0.bytes != $1.bytes ? $0.bytes > $1.bytes : $0.name < $1.name }
            .map { JSONValue.object(["name": .string($0.name), "type": .string($0.type), "bytes": .int($0.bytes)]) }
    }
}
