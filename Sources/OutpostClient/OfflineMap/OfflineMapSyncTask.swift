import Foundation
import OutpostWire

/// What an offline map could exchange with its services now (`OfflineMapUpdatesInfo`).
public struct OfflineMapUpdatesInfo: Sendable, Equatable {
    public enum Availability: String, Sendable, Equatable { case available, none, indeterminate }
    /// Registered replicas cannot tell without syncing: `indeterminate`.
    public var downloadAvailability: Availability
    /// `available` when any geodatabase holds edits not sent.
    public var uploadAvailability: Availability
    public var scheduledUpdatesDownloadSize: Int64
    public var isMobileMapPackageReopenRequired: Bool
}

/// Keeps an offline map folder (docs/offline-map-format.md) in step with its services, after
/// the ArcGIS Maps SDKs' `OfflineMapSyncTask`: every geodatabase synced with its own service
/// (one failing does not stop the others) or, for a preplanned area with scheduled updates,
/// brought up to date by the package's deltas (or taken whole again, saying so); what is
/// pending; and unregistering every replica when the map is no longer needed.
public final class OfflineMapSyncTask: Sendable {
    public let directory: URL
    let token: String?
    let transport: (any HTTPTransport)?
    /// The geodatabases (relative paths) and their services.
    public let geodatabases: [(file: String, serviceURL: URL)]
    /// A preplanned area kept current by scheduled updates: each geodatabase's package item.
    let packages: [String: String]
    let portal: URL?
    public let updateMode: String

    public init(offlineMapDirectory: URL, token: String? = nil, transport: (any HTTPTransport)? = nil) throws {
        directory = offlineMapDirectory
        self.token = token
        self.transport = transport
        let manifestURL = offlineMapDirectory.appendingPathComponent("package.json")
        guard let data = try? Data(contentsOf: manifestURL), let manifest = try? JSONParser.parse(String(decoding: data, as: UTF8.self)),
            manifest["format"] == "outpost-offline-map"
        else { throw ClientError.geodatabase("\(offlineMapDirectory.path) is not an offline map (no package.json)") }
        guard (manifest["version"]?.int64Value ?? 0) <= 1 else {
            throw ClientError.unsupported("offline map version \(manifest["version"]?.jsonText ?? "?")")
        }
        updateMode = manifest["updateMode"]?.stringValue ?? "syncWithFeatureServices"
        portal = manifest["source"]?["portal"]?.stringValue.flatMap(URL.init)
        var packages: [String: String] = [:]
        if updateMode == PreplannedUpdateMode.downloadScheduledUpdates.rawValue {
            for entry in manifest["files"]?.arrayValue ?? [] {
                if let file = entry["file"]?.stringValue, let item = entry["packageItemId"]?.stringValue { packages[file] = item }
            }
        }
        self.packages = packages
        geodatabases = (manifest["files"]?.arrayValue ?? []).compactMap { entry in
            guard entry["kind"] == "geodatabase", let file = entry["file"]?.stringValue, let url = entry["serviceUrl"]?.stringValue.flatMap(URL.init)
            else { return nil }
            return (file, url)
        }
    }

    func open(_ file: String) throws -> Geodatabase { try Geodatabase.open(directory.appendingPathComponent(file)) }

    public func makeDefaultOfflineMapSyncParameters() -> OfflineMapSyncParameters { OfflineMapSyncParameters() }

    var areas: MapAreaClient? { portal.map { MapAreaClient(base: $0, token: token, transport: transport) } }

    /// Edits waiting to go up; for registered replicas downloads cannot be known without
    /// syncing (`indeterminate`); with scheduled updates, the deltas waiting and their size,
    /// or that a package must be taken whole (`isMobileMapPackageReopenRequired`).
    public func checkForUpdates() async throws -> OfflineMapUpdatesInfo {
        var pending = false
        var info = OfflineMapUpdatesInfo(
            downloadAvailability: geodatabases.isEmpty ? .none : .indeterminate, uploadAvailability: .none, scheduledUpdatesDownloadSize: 0,
            isMobileMapPackageReopenRequired: false)
        if !packages.isEmpty { info.downloadAvailability = .none }
        for (file, _) in geodatabases {
            let geodatabase = try open(file)
            pending = try pending || geodatabase.hasLocalEdits
            geodatabase.close()
            guard let item = packages[file], let areas else { continue }
            let plan = try await areas.checkForUpdates(package: item, copy: directory.appendingPathComponent(file).path)
            switch plan {
            case .upToDate: break
            case .applyDeltas:
                info.downloadAvailability = .available
                info.scheduledUpdatesDownloadSize += plan.deltaBytes
            case .downloadWhole:
                info.downloadAvailability = .available
                info.isMobileMapPackageReopenRequired = true
            }
        }
        info.uploadAvailability = pending ? .available : .none
        return info
    }

    /// A job syncing every geodatabase of the folder (`start()` it): with its service, or for
    /// a preplanned area with scheduled updates by the package's deltas (unless
    /// `preplannedScheduledUpdatesOption` is `noUpdates`).
    public func makeOfflineMapSyncJob(parameters: OfflineMapSyncParameters) throws -> OfflineMapSyncJob {
        var layers: [OfflineMapSyncJob.MapLayer] = []
        if let data = try? Data(contentsOf: directory.appendingPathComponent("map.json")),
            let map = try? JSONParser.parse(String(decoding: data, as: UTF8.self))
        {
            for (entries, isTable) in [(map["operationalLayers"], false), (map["tables"], true)] {
                for entry in entries?.arrayValue ?? [] {
                    guard let file = entry["url"]?.stringValue, file.hasSuffix(".gpkg"), let id = entry["id"]?.stringValue else { continue }
                    layers.append(.init(mapLayerId: id, file: file, layerId: entry["x-outpost-layerId"]?.int64Value.map(Int.init), isTable: isTable))
                }
            }
        }
        var children: [ChildJobRecord] = []
        for (file, service) in geodatabases {
            let ids = layers.filter { $0.file == file }.map(\.mapLayerId)
            if let item = packages[file] {
                guard parameters.preplannedScheduledUpdatesOption == .downloadAllUpdates else { continue }
                children.append(.init(kind: .scheduledUpdates, serviceURL: service.absoluteString, mapLayerIds: ids, file: file, packageItemId: item))
            } else {
                children.append(.init(kind: .sync, serviceURL: service.absoluteString, mapLayerIds: ids, file: file))
            }
        }
        let document = OfflineMapSyncJob.Document(
            id: GeodatabaseSyncTask.newJobId(), directory: directory.path, portal: portal?.absoluteString, parameters: parameters, layers: layers,
            children: children)
        return OfflineMapSyncJob(document: document, token: token, transport: transport)
    }

    /// Syncs every geodatabase and waits for the end: `makeOfflineMapSyncJob` started and awaited.
    public func sync(
        parameters: OfflineMapSyncParameters = OfflineMapSyncParameters(), pollInterval: Duration = .seconds(1)
    ) async throws -> OfflineMapSyncResult {
        let job = try makeOfflineMapSyncJob(parameters: parameters)
        job.pollInterval = pollInterval
        job.start()
        return try await job.output
    }

    /// Unregisters every geodatabase's replica; the files stay, but no longer sync.
    public func unregisterAll() async throws {
        for (file, service) in geodatabases {
            let geodatabase = try open(file)
            defer { geodatabase.close() }
            try await GeodatabaseSyncTask(url: service, token: token, transport: transport).unregisterGeodatabase(geodatabase)
        }
    }
}
