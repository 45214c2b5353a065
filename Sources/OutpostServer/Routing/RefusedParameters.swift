import OutpostStorage

/// The parameters of the REST API that carry the values a backend may refuse
/// (`StorageRefusal.Value`): storage says which value it refused, the route that read the
/// request names the parameter (`StorageRefusal.naming`).
enum RefusedParameters {
    /// A layer's `query` (`LayerQuery.parse`).
    static let query: [StorageRefusal.Value: String] = [
        .whereClause: "where", .having: "having", .objectIds: "objectIds", .geometry: "geometry", .geometrySpatialReference: "inSR",
        .outputSpatialReference: "outSR", .outFields: "outFields", .orderBy: "orderByFields", .groupBy: "groupByFieldsForStatistics",
        .statistics: "outStatistics",
    ]

    /// `uploads/<id>/uploadPart` and `uploads/<id>/commit`.
    static let upload: [StorageRefusal.Value: String] = [.partId: "partId", .parts: "parts"]
}
