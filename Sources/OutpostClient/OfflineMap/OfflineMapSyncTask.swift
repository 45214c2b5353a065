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

/// How `OfflineMapSyncTask.sync` syncs every geodatabase of the folder.
public struct OfflineMapSyncParameters: Sendable, Equatable {
    public var syncDirection: SyncDirection
    public var rollbackOnFailure: Bool

    public init(syncDirection: SyncDirection = .bidirectional, rollbackOnFailure: Bool = false) {
        self.syncDirection = syncDirection
        self.rollbackOnFailure = rollbackOnFailure
    }
}

/// What a sync of the whole offline map did, per geodatabase file (relative to the folder).
public struct OfflineMapSyncResult: Sendable, Equatable {
    public var results: [String: SyncResult]
    public var errors: [String: ClientError]
    public var hasErrors: Bool { !errors.isEmpty || results.values.contains { !$0.failedEdits.isEmpty } }
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

    /// Syncs every geodatabase, one after the other; a failure is reported for its file and the others still sync.
    public func sync(
        parameters: OfflineMapSyncParameters = OfflineMapSyncParameters(), pollInterval: Duration = .seconds(1)
    ) async throws
        -> OfflineMapSyncResult
    {
        var result = OfflineMapSyncResult(results: [:], errors: [:], isMobileMapPackageReopenRequired: false)
        for (file, service) in geodatabases {
            if let item = packages[file], let areas {
                do {
                    let update = try await areas.update(package: item, copy: directory.appendingPathComponent(file).path)
                    if update.reopenRequired { result.isMobileMapPackageReopenRequired = true }
                    result.results[file] = SyncResult(
                        editsUploaded: 0, changesApplied: update.appliedDeltas.count, changesDeferred: 0, objectIdsAssigned: 0, failedEdits: [])
                } catch {
                    result.errors[file] = error as? ClientError ?? .invalidResponse("\(error)")
                }
                continue
            }
            do {
                let geodatabase = try open(file)
                defer { geodatabase.close() }
                let task = GeodatabaseSyncTask(url: service, token: token, transport: transport)
                let job = task.makeSyncGeodatabaseJob(
                    parameters: SyncGeodatabaseParameters(syncDirection: parameters.syncDirection, rollbackOnFailure: parameters.rollbackOnFailure),
                    geodatabase: geodatabase)
                job.pollInterval = pollInterval
                job.start()
                result.results[file] = try await job.output
            } catch {
                result.errors[file] = error as? ClientError ?? .invalidResponse("\(error)")
            }
        }
        return result
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
