import OutpostService
import OutpostStorage
import OutpostWire

extension PortalController {
    /// The item id of the service a file item was published to, while that service exists.
    func publishedService(of itemId: String) throws -> String? {
        let origins = try store.portal.relationships(of: itemId).filter { $0.type == "Service2Data" && $0.destination == itemId }.map(\.origin)
        guard !origins.isEmpty else { return nil }
        var services = Set(try store.catalog().services.map { ServiceItems.id(forService: $0.definition.name) })
        for set in try store.tiles.tileSets() { services.insert(ServiceItems.id(forService: "\(set.kind.serviceKind):\(set.name)")) }
        return origins.first(where: services.contains)
    }

    /// A published file is what its service's storage counts against its owner's quota (the
    /// service is the organisation's): while the service exists, or a publish reads it, the
    /// file item keeps its file, so deleting it, or replacing its file with a smaller one,
    /// cannot free the quota for another publish (issue 48's attack). Its title, tags and
    /// sharing still change. The item is held while `change` runs, so a publish sent meanwhile
    /// is refused rather than left reading a file being removed.
    func whilePublishable<T>(_ item: PortalItem, _ change: String, _ body: () throws -> T) throws -> T {
        if let job = try publishes.hold(item: item.id, jobs: store.jobs) {
            throw ArcGISError(
                kind: .conflict, message: "Unable to \(change) item. It is being published.",
                details: ["Publish job \(job) reads its file: try again once it has ended."])
        }
        defer { publishes.release(item: item.id) }
        if let service = try publishedService(of: item.id) {
            throw ArcGISError(
                kind: .conflict, message: "Unable to \(change) item. A service was published from it.",
                details: ["Its file counts the service's storage against its owner's quota: an administrator deletes service item \(service) first."])
        }
        return try body()
    }
}
