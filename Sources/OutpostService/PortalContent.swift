import OutpostStorage
import OutpostWire

/// Adding content to the portal, for the HTTP server and the CLI alike.
public struct PortalContent<Backend: OutpostBackend>: Sendable {
    public let backend: Backend

    public init(backend: Backend) {
        self.backend = backend
    }

    /// The type keywords of a web map item (`Offline` when it may be taken offline).
    public static func webMapKeywords(offline: Bool) -> [String] {
        ["ArcGIS Online", "Explorer Web Map", "Map", "Online Map", "Web Map"] + (offline ? ["Offline"] : [])
    }

    /// Adds a `Web Map` item whose data is `text`, kept as given. Refuses a text that is not
    /// a web map: a JSON object with `operationalLayers` (an array) or `baseMap` (an object).
    public func addWebMap(
        _ text: String, title: String, owner: String, offline: Bool, access: ItemAccess = .private, caller: PortalCaller,
        id: String = PortalNames.newId()
    ) throws -> PortalItem {
        guard caller.mayCreate(for: owner) else { throw ArcGISError.forbidden }
        try WebMapText.check(text)
        let item = PortalItem(
            id: id, owner: owner, title: title, type: "Web Map", access: access, created: backend.clock.milliseconds(),
            typeKeywords: Self.webMapKeywords(offline: offline), size: Int64(text.utf8.count))
        try backend.portal.addItem(item, data: .text(text))
        return item
    }
}
