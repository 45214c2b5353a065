import Foundation
import OutpostStorage
import OutpostSync
import OutpostWire

/// Map areas of web maps (docs/map-areas.md): CreateMapArea's item, and the areas a map has.
public struct MapAreas<Backend: OutpostBackend>: Sendable {
    public let backend: Backend
    public let caller: PortalCaller
    /// Areas per web map (`maxMapAreaItemsLimit`).
    public let limit: Int

    public static var mapToArea: String { "Map2Area" }
    public static var areaToPackage: String { "Area2Package" }

    public init(backend: Backend, caller: PortalCaller, limit: Int = MapAreaPlanner.defaultAreaLimit) {
        self.backend = backend
        self.caller = caller
        self.limit = limit
    }

    /// CreateMapArea: checks the map (a web map the caller may change, enabled for offline use),
    /// the area (`MapAreaPlanner`) and the map's limit, then adds the Map Area item, shared as
    /// the map is, related to it by `Map2Area`, with `properties.status` `processing`. Given a
    /// map area, it reschedules it (`reschedule`).
    public func create(
        mapItemId: String, areaType: String?, area: String?, extent: String?, bookmark: String?, outputName: JSONValue
    ) throws -> PortalItem {
        if let area = try backend.portal.item(id: mapItemId), caller.maySee(area), area.type == "Map Area" { return try reschedule(area) }
        guard let map = try backend.portal.item(id: mapItemId), caller.maySee(map), map.type == "Web Map" else {
            throw PackagingError.invalid("mapItemId", "'\(mapItemId)' is not a web map you can see.")
        }
        guard caller.mayChange(map) else {
            throw PackagingError.invalid("mapItemId", "Only the web map's owner or an administrator creates its areas.")
        }
        guard map.typeKeywords.contains("Offline") else {
            throw PackagingError.invalid("mapItemId", "The web map is not enabled for offline use (the Offline type keyword).")
        }
        let webMap = try webMapJSON(of: map)
        let shape = try MapAreaPlanner.area(areaType: areaType, area: area, extent: extent, bookmark: bookmark, webMap: webMap)
        try MapAreaPlanner.check(shape, existing: try areas(of: map.id).compactMap(Self.shape), limit: limit)

        let now = backend.clock.milliseconds()
        let id = PortalNames.newId()
        var properties: JSONObject = ["status": "processing", "extent": shape.extentJSON]
        if case .polygon = shape { properties["area"] = ["polygon": shape.geometryJSON] }
        if let schedule = outputName["packageRefreshSchedule"]?.stringValue, !schedule.isEmpty {
            do { _ = try RefreshSchedule(schedule) } catch {
                throw PackagingError.invalid("packageRefreshSchedule", "'\(schedule)': \(error.reason).")
            }
            properties["packageRefreshSchedule"] = .string(schedule)
        }
        let box = Self.degrees(shape)
        let item = PortalItem(
            id: id, owner: caller.name ?? map.owner, title: outputName["title"]?.stringValue ?? "\(map.title)-\(id.prefix(8))", type: "Map Area",
            access: map.access, created: now, ownerFolder: outputName["folderId"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
            typeKeywords: ["Map", "Map Area"], tags: Self.tags(outputName["tags"]), snippet: outputName["snippet"]?.stringValue ?? "",
            description: outputName["description"]?.stringValue ?? "", properties: .object(properties), extent: box, spatialReference: "4326")
        try backend.portal.addItem(item, data: nil)
        var created = item
        // The area shows the map's picture (ArcGIS draws one of the area; Outpost renders nothing).
        if let thumbnail = try backend.portal.thumbnailPath(item: map.id), let bytes = FileManager.default.contents(atPath: thumbnail) {
            created = try backend.portal.setThumbnail(
                item: id, name: (thumbnail as NSString).lastPathComponent, data: .bytes(Array(bytes)))
        }
        try backend.portal.addRelationship(ItemRelationship(origin: map.id, destination: id, type: Self.mapToArea))
        if !map.typeKeywords.contains("Offline Map Areas") {
            var marked = map
            marked.typeKeywords.append("Offline Map Areas")
            try backend.portal.updateItem(marked, data: nil)
        }
        return created
    }

    /// An area's new `properties` from an `update`, keeping what the packager keeps there when
    /// they leave it out (the Python API's `modify_refresh_schedule` sends only status, schedule
    /// and extent; ArcGIS keeps a polygon area as a resource, beyond its reach).
    public static func keepingPackagerProperties(_ properties: JSONValue, of area: PortalItem) -> JSONValue {
        guard case .object(var object) = properties else { return properties }
        for key in ["area", "lastScheduledRefresh"] where object[key] == nil {
            object[key] = area.properties[key]
        }
        return .object(object)
    }

    /// CreateMapArea given a map area instead of a web map: what the Python API's
    /// `modify_refresh_schedule` sends after it has written the new schedule into the area
    /// (offline-maps.md §2.4). The schedule is checked and the area answered; the scheduler
    /// reads the schedule from the area.
    func reschedule(_ area: PortalItem) throws -> PortalItem {
        guard caller.mayChange(area) else {
            throw PackagingError.invalid("mapItemId", "Only the area's owner or an administrator reschedules it.")
        }
        if let schedule = area.properties["packageRefreshSchedule"]?.stringValue, !schedule.isEmpty {
            do { _ = try RefreshSchedule(schedule) } catch {
                throw PackagingError.invalid("packageRefreshSchedule", "'\(schedule)': \(error.reason).")
            }
        }
        return area
    }

    /// An area's packages (`Area2Package`, forward).
    public func packages(of area: PortalItem) throws -> [PortalItem] {
        try backend.portal.relationships(of: area.id).filter { $0.type == Self.areaToPackage && $0.origin == area.id }
            .compactMap { try backend.portal.item(id: $0.destination) }
    }

    /// Deletes an area's packages and unregisters their replicas: deleting an area takes them
    /// with it. Each related item is checked on its own (`removePackage`).
    public func removePackages(of area: PortalItem) throws {
        for relation in try backend.portal.relationships(of: area.id) where relation.type == Self.areaToPackage && relation.origin == area.id {
            try removePackage(relation.destination, of: area)
        }
    }

    /// Whether `item` is a package the packager made, which the caller may delete with its
    /// area: anything else an `Area2Package` relationship names (another user's item, a web
    /// map, a package the caller may not change) only loses the relationship.
    public func isRemovablePackage(_ item: PortalItem) -> Bool {
        item.typeKeywords.contains("MapAreaPackage") && caller.mayChange(item)
    }

    /// Deletes one package of an area, its relationship, and unregisters its replica as the
    /// caller (who must be allowed to manage it); an item that is not a package the caller may
    /// delete keeps everything but the relationship.
    public func removePackage(_ id: String, of area: PortalItem) throws {
        if let package = try backend.portal.item(id: id), isRemovablePackage(package) {
            if let replica = package.properties["replicaID"]?.stringValue, let url = package.properties["url"]?.stringValue,
                let service = Self.featureServiceName(url)
            {
                try? ReplicaAdministration(backend: backend).unregister(service: service, replicaId: replica, for: caller.asReplicaCaller)
            }
            try? backend.portal.deleteItem(id: id)
        }
        try backend.portal.deleteRelationship(ItemRelationship(origin: area.id, destination: id, type: Self.areaToPackage))
    }

    /// `Name` or `Folder/Name` of a `…/rest/services/<name>/FeatureServer` URL.
    static func featureServiceName(_ url: String) -> String? {
        guard let start = url.range(of: "/rest/services/"), let end = url.range(of: "/FeatureServer", options: .backwards),
            start.upperBound < end.lowerBound
        else { return nil }
        return String(url[start.upperBound..<end.lowerBound])
    }

    /// The map's areas (`Map2Area`, forward).
    public func areas(of mapId: String) throws -> [PortalItem] {
        try backend.portal.relationships(of: mapId).filter { $0.type == Self.mapToArea && $0.origin == mapId }
            .compactMap { try backend.portal.item(id: $0.destination) }
    }

    /// The web map an area belongs to (`Map2Area`, reverse).
    public func webMap(of area: PortalItem) throws -> PortalItem? {
        try backend.portal.relationships(of: area.id).first { $0.type == Self.mapToArea && $0.destination == area.id }
            .flatMap { try backend.portal.item(id: $0.origin) }
    }

    public func webMapJSON(of map: PortalItem) throws -> JSONValue {
        guard case .text(let text) = try backend.portal.data(of: map.id), let json = try? JSONParser.parse(text) else {
            throw PackagingError.invalid("mapItemId", "The web map has no JSON data.")
        }
        return json
    }

    /// An area item's shape, from its properties.
    public static func shape(_ area: PortalItem) -> MapAreaShape? {
        let geometry = area.properties["area"]?["polygon"] ?? area.properties["extent"]
        guard let geometry else { return nil }
        return try? MapAreaPlanner.area(
            areaType: geometry["rings"] != nil ? "POLYGON" : "ENVELOPE", area: geometry.jsonText, extent: nil, bookmark: nil, webMap: .null)
    }

    /// An item's `extent`: the shape's box in degrees.
    static func degrees(_ shape: MapAreaShape) -> [[Double]] {
        let box = shape.extent
        guard shape.wkid == 102100 || shape.wkid == 3857 else { return [[box.xmin, box.ymin], [box.xmax, box.ymax]] }
        let low = WebMercatorTiling.unproject(x: box.xmin, y: box.ymin)
        let high = WebMercatorTiling.unproject(x: box.xmax, y: box.ymax)
        return [[low.longitude, low.latitude], [high.longitude, high.latitude]]
    }

    private static func tags(_ value: JSONValue?) -> [String] {
        if let list = value?.arrayValue { return list.compactMap(\.stringValue) }
        return (value?.stringValue ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
