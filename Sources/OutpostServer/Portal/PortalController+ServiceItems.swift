import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

extension PortalController {
    /// The tile set whose service item has the id, if any (service items are made from the
    /// services, never stored: `ServiceItems`).
    func tileSet(serviceItemId id: String) throws -> TileSet? {
        guard try store.portal.item(id: id) == nil else { return nil }
        return try store.tiles.tileSets().first { ServiceItems.id(forService: "\($0.kind.serviceKind):\($0.name)") == id }
    }

    /// The feature service whose service item has the id, if any.
    func featureService(serviceItemId id: String) throws -> String? {
        guard try store.portal.item(id: id) == nil else { return nil }
        return try store.schema.catalog().services.first { ServiceItems.id(forService: $0.definition.name) == id }?.definition.name
    }

    /// The locator or network whose service item has the id, if any.
    func task(serviceItemId id: String) throws -> TaskService? {
        guard try store.portal.item(id: id) == nil else { return nil }
        if let locator = try store.locators.locators().first(where: { ServiceItems.id(forLocator: $0.name) == id }) {
            return .locator(locator.name)
        }
        return try store.networks.networks().first { ServiceItems.id(forNetwork: $0.name) == id }.map { .network($0.name) }
    }

    enum TaskService {
        case locator(String)
        case network(String)
    }

    /// Deleting a locator's or a network's item deletes it, as `outpost locator|network remove`
    /// does; who may: as for a tile service (an administrator, with token security).
    func deleteTask(_ task: TaskService, itemId: String, _ c: OutpostRequestContext) throws -> Response {
        let item = try visibleItem(id: itemId, c)
        guard caller(c).mayChange(item) else { throw ArcGISError.forbidden }
        switch task {
        case .locator(let name): try store.locators.deleteLocator(named: name)
        case .network(let name): try store.networks.deleteNetwork(named: name)
        }
        for relationship in try store.portal.relationships(of: itemId) { try store.portal.deleteRelationship(relationship) }
        return RESTResponse.json(["success": true, "itemId": .string(itemId)], parameters: c.form.parameters)
    }

    /// Deleting a hosted feature layer's item deletes its service, as in ArcGIS Online: its
    /// data, attachments, change tracking and conflict log, and the item's relationships (the
    /// file item it was published from stays). Refused (409) while replicas are registered
    /// with it, so no device loses edits it has not synced, or while its jobs run. Who may:
    /// as for a tile service.
    func deleteFeatureService(_ name: String, itemId: String, _ c: OutpostRequestContext) throws -> Response {
        let item = try visibleItem(id: itemId, c)
        guard caller(c).mayChange(item) else { throw ArcGISError.forbidden }
        try store.schema.deleteService(named: name)
        // Its replica files and sync answers: a service made later with the name never serves them.
        let made = try store.resultFiles.resultFiles(madeFor: name)
        files.remove(made)
        try store.resultFiles.forgetResultFiles(made)
        for relationship in try store.portal.relationships(of: itemId) { try store.portal.deleteRelationship(relationship) }
        return RESTResponse.json(["success": true, "itemId": .string(itemId)], parameters: c.form.parameters)
    }

    /// Deleting a tile service's item deletes the service, as deleting a hosted tile layer's
    /// item does in ArcGIS Online (the ArcGIS API for Python's `Item.delete()`): its set, its
    /// file and its item's relationships (the file item it was published from stays). The
    /// organisation's services are changed by an administrator (or anyone without token
    /// security, as every item is); one the caller may not see is not found.
    func deleteTileService(_ set: TileSet, itemId: String, _ c: OutpostRequestContext) throws -> Response {
        let item = try visibleItem(id: itemId, c)
        guard caller(c).mayChange(item) else { throw ArcGISError.forbidden }
        try store.tiles.deleteTileSet(named: set.name)
        // The tiles this process served from memory go with it, whatever follows fails; other
        // processes read the set again within `TileCache.setLifetime` (docs/portal.md).
        defer { tileCache?.removeAll() }
        for relationship in try store.portal.relationships(of: itemId) { try store.portal.deleteRelationship(relationship) }
        return RESTResponse.json(["success": true, "itemId": .string(itemId)], parameters: c.form.parameters)
    }
}
