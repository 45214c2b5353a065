import Foundation
import OutpostGeometry
import OutpostWire

/// Queries and edits on the table itself, after the ArcGIS Maps SDKs' `FeatureTable`: async
/// (the SQLite work runs off the caller's actor), with typed `Feature`s. The rules are the
/// geodatabase's: one transaction at a time, none while a sync runs, edits logged for the
/// next sync.
extension GeodatabaseFeatureTable {
    private func owner() throws -> Geodatabase {
        guard let geodatabase else { throw ClientError.geodatabase("the table \(name) belongs to no open geodatabase") }
        return geodatabase
    }

    /// A new feature of this table (not yet added).
    public func makeFeature(attributes: [String: AttributeValue] = [:], geometry: Geometry? = nil) -> Feature {
        Feature(table: self, attributes: attributes, geometry: geometry)
    }

    /// The features matching `whereClause` (SQL-92 as on the server, parsed, never pasted
    /// into SQL) and intersecting `envelope` (in the replica's spatial reference).
    public func queryFeatures(whereClause: String? = nil, envelope: Envelope? = nil) async throws -> [Feature] {
        try owner().query(self, where: whereClause, envelope: envelope).map { Feature(table: self, local: $0) }
    }

    public func feature(globalId: String) async throws -> Feature? {
        try owner().feature(globalId: globalId, in: self).map { Feature(table: self, local: $0) }
    }

    public func featureCount() async throws -> Int { try owner().count(self) }

    /// Adds the feature; returns it with its local OBJECTID and its GlobalID.
    @discardableResult
    public func add(_ feature: Feature) async throws -> Feature {
        Feature(table: self, local: try owner().add(feature.local, to: self))
    }

    /// Adds features in one go (the fast path for bulk edits).
    @discardableResult
    public func add(contentsOf features: [Feature]) async throws -> [Feature] {
        try owner().addAll(features.map(\.local), to: self).map { Feature(table: self, local: $0) }
    }

    /// Writes the feature's attributes and geometry over the stored one with its GlobalID.
    public func update(_ feature: Feature) async throws {
        try owner().update(feature.local, in: self)
    }

    public func delete(_ feature: Feature) async throws {
        guard let id = feature.globalId else { throw ClientError.geodatabase("the feature has no GlobalID: it was never added") }
        try owner().delete(globalId: id, from: self)
    }
}
