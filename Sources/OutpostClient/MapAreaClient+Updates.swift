import Foundation
import OutpostGeoPackage
import OutpostSync
import OutpostWire

/// A field device's side of preplanned map areas: download an area's packages, and keep a
/// copy of a feature package current with the scheduled-update deltas the server publishes
/// (offline-maps.md §2.5; docs/map-areas.md, "Updating a copy").
extension MapAreaClient {
    public struct Package: Sendable, Equatable {
        public var id: String
        public var type: String
        /// The file name the package downloads as: `<id>.gpkg`, `<id>.tpkx` or `<id>.mbtiles`.
        public var fileName: String
    }

    /// What updating a copy did.
    public struct UpdateResult: Sendable, Equatable {
        public var plan: ScheduledUpdatePlan
        /// The generations of the deltas applied, in order.
        public var appliedDeltas: [Int64]
        /// Where the applied delta files were kept (`keepingDeltasIn`), in order.
        public var keptDeltas: [URL] = []
        /// The copy was replaced by the whole package: whoever has it open must open it again
        /// (`isMobileMapPackageReopenRequired`).
        public var reopenRequired: Bool
    }

    /// The area's packages (`Area2Package`).
    public func packages(of area: String) async throws -> [Package] {
        let related = try checked(
            try await connection.getJSON(
                portal("content/items/\(area)/relatedItems"), [("relationshipTypes", "Area2Package"), ("direction", "forward")]))
        return (related["relatedItems"]?.arrayValue ?? []).compactMap { item in
            guard let id = item["id"]?.stringValue, let type = item["type"]?.stringValue else { return nil }
            let fileExtension =
                switch type {
                case "GeoPackage": "gpkg"
                case "Compact Tile Package": "tpkx"
                default: "mbtiles"
                }
            return Package(id: id, type: type, fileName: "\(id).\(fileExtension)")
        }
    }

    /// Downloads every package of the area into `directory` (made if absent), each as its `fileName`.
    public func download(area: String, to directory: URL) async throws -> [Package] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let packages = try await packages(of: area)
        for package in packages {
            _ = try await connection.downloadFile(
                portal("content/items/\(package.id)/data"), to: directory.appendingPathComponent(package.fileName).path)
        }
        return packages
    }

    /// What updating the copy at `path` of feature package `package` would do, asking the
    /// server for the package's generations and its deltas.
    public func checkForUpdates(package: String, copy path: String) async throws -> ScheduledUpdatePlan {
        let item = try checked(try await connection.getJSON(portal("content/items/\(package)")))
        guard let state = PackageState(properties: item["properties"] ?? .null) else {
            throw ClientError.unsupported("item \(package) is not a feature package (no replicaID and generations)")
        }
        var resources: [PackageDelta] = []
        var start = 1
        while start > 0 {
            let page = try checked(
                try await connection.getJSON(portal("content/items/\(package)/resources"), [("start", String(start)), ("num", "100")]))
            for entry in page["resources"]?.arrayValue ?? [] {
                if let name = entry["resource"]?.stringValue, let delta = PackageDelta(resource: name, size: entry["size"]?.int64Value ?? 0) {
                    resources.append(delta)
                }
            }
            start = Int(page["nextStart"]?.int64Value ?? -1)
        }
        let info = try Self.localState(of: path)
        return ScheduledUpdatePlanner.plan(localReplica: info.replica, localGeneration: info.generation, package: state, resources: resources)
    }

    /// Brings the copy at `path` up to the package: applies the deltas newer than it in order
    /// (each in one transaction: a cut-off update resumes from the last one applied), or
    /// downloads the package whole and puts it in the copy's place when deltas cannot do it —
    /// never over edits the copy has not sent (`ClientError.geodatabase` says so). With
    /// `keepingDeltasIn`, each applied delta file is kept there as `d_<gen>.gpkg`.
    public func update(package: String, copy path: String, keepingDeltasIn kept: URL? = nil) async throws -> UpdateResult {
        let plan = try await checkForUpdates(package: package, copy: path)
        switch plan {
        case .upToDate:
            return UpdateResult(plan: plan, appliedDeltas: [], reopenRequired: false)
        case .applyDeltas(let deltas):
            var result = UpdateResult(plan: plan, appliedDeltas: [], reopenRequired: false)
            for delta in deltas {
                let file = path + ".\(delta.name)"
                defer { try? FileManager.default.removeItem(atPath: file) }
                _ = try await connection.downloadFile(portal("content/items/\(package)/resources/\(delta.name)"), to: file)
                let copy = try Geodatabase.open(path)
                defer { copy.close() }
                try copy.importDelta(at: file)
                result.appliedDeltas.append(delta.generation)
                if let kept {
                    try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true)
                    let destination = kept.appendingPathComponent(delta.name)
                    try? FileManager.default.removeItem(at: destination)
                    try FileManager.default.moveItem(atPath: file, toPath: destination.path)
                    result.keptDeltas.append(destination)
                }
            }
            return result
        case .downloadWhole:
            let copy = try Geodatabase.open(path)
            let pending = try copy.localEditCount
            copy.close()
            guard pending == 0 else {
                throw ClientError.geodatabase(
                    "\(path) has \(pending) local edits not sent; sync them before the package is downloaded again whole (\(plan))")
            }
            _ = try await connection.downloadFile(portal("content/items/\(package)/data"), to: path)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            return UpdateResult(plan: plan, appliedDeltas: [], reopenRequired: true)
        }
    }

    /// The copy's replica and generation (the newest of its layers' in per-layer sync).
    static func localState(of path: String) throws -> (replica: String, generation: Int64) {
        let copy = try Geodatabase.open(path)
        defer { copy.close() }
        let info = try copy.info()
        let generation = info.syncModel == .perLayer ? (info.layers.map(\.serverGen).max() ?? info.replicaServerGen) : info.replicaServerGen
        return (info.replicaId, generation)
    }
}
