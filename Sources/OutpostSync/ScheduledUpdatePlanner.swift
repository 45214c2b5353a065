import OutpostWire

/// A scheduled-update delta a package item keeps as its resource `d_<generation>.gpkg`.
public struct PackageDelta: Equatable, Sendable {
    public var name: String
    /// The generation the delta brings a copy to.
    public var generation: Int64
    public var size: Int64

    public init(name: String, generation: Int64, size: Int64) {
        self.name = name
        self.generation = generation
        self.size = size
    }

    /// `d_<generation>.gpkg` (Esri's packager names them `d_<generation>.geodatabase`); nil for other resources.
    public init?(resource name: String, size: Int64) {
        for suffix in [".gpkg", ".geodatabase"] where name.hasPrefix("d_") && name.hasSuffix(suffix) {
            guard let generation = Int64(name.dropFirst(2).dropLast(suffix.count)) else { return nil }
            self.init(name: name, generation: generation, size: size)
            return
        }
        return nil
    }
}

/// What a feature package item says of itself (docs/map-areas.md, "Items").
public struct PackageState: Equatable, Sendable {
    public var replicaId: String
    /// `replicaServerGen`, or the newest of `layerServerGens`.
    public var generation: Int64
    /// Deltas up to this generation were purged: a copy behind it cannot be brought up to date by deltas.
    public var lastPurgedGeneration: Int64?
    /// `createPkgDeltas` was asked: refreshes keep deltas.
    public var keepsDeltas: Bool

    public init(replicaId: String, generation: Int64, lastPurgedGeneration: Int64?, keepsDeltas: Bool) {
        self.replicaId = replicaId
        self.generation = generation
        self.lastPurgedGeneration = lastPurgedGeneration
        self.keepsDeltas = keepsDeltas
    }

    /// From a package item's `properties`; nil when it is not a feature package.
    public init?(properties: JSONValue) {
        guard let replica = properties["replicaID"]?.stringValue else { return nil }
        let generation =
            properties["replicaServerGen"]?.int64Value
            ?? properties["layerServerGens"]?.arrayValue?.compactMap { $0["serverGen"]?.int64Value }.max()
        guard let generation else { return nil }
        let keeps = properties["createPkgDeltas"]?["maxDeltaAge"] != nil
        self.init(
            replicaId: replica, generation: generation, lastPurgedGeneration: properties["lastPurgedGen"]?.int64Value, keepsDeltas: keeps)
    }
}

/// Why a copy of a package must be downloaded again whole instead of updated by deltas.
public enum WholeDownloadReason: Equatable, Sendable, CustomStringConvertible {
    /// The package was made again with a new replica (its old one was lost).
    case packageReplaced(localReplica: String, packageReplica: String)
    /// The deltas the copy needs were purged (older than `maxDeltaAge`).
    case deltasPurged(localGeneration: Int64, lastPurgedGeneration: Int64)
    /// The package keeps no deltas (`createPkgDeltas` was not asked).
    case noDeltasKept(localGeneration: Int64, packageGeneration: Int64)
    /// The kept deltas do not lead from the copy's generation to the package's.
    case deltasDoNotReach(localGeneration: Int64, packageGeneration: Int64)
    /// The copy is newer than the package (the server was restored from an older backup).
    case copyAheadOfPackage(localGeneration: Int64, packageGeneration: Int64)

    public var description: String {
        switch self {
        case .packageReplaced(let local, let package):
            "the package was made again with a new replica (\(package), this copy has \(local))"
        case .deltasPurged(let local, let purged):
            "the deltas after generation \(local) were purged (lastPurgedGen \(purged)): this copy was not updated within maxDeltaAge"
        case .noDeltasKept(let local, let package):
            "the package keeps no update deltas (createPkgDeltas) and moved from generation \(local) to \(package)"
        case .deltasDoNotReach(let local, let package):
            "the package's deltas do not lead from generation \(local) to \(package)"
        case .copyAheadOfPackage(let local, let package):
            "this copy (generation \(local)) is newer than the package (\(package)): the server's data was restored"
        }
    }
}

/// What to do with a device's copy of a feature package (offline-maps.md §2.5): nothing, the
/// package's deltas newer than the copy in ascending order, or the whole package again.
public enum ScheduledUpdatePlan: Equatable, Sendable {
    case upToDate
    case applyDeltas([PackageDelta])
    case downloadWhole(WholeDownloadReason)

    /// The bytes the deltas to apply weigh (`scheduledUpdatesDownloadSize`); 0 otherwise.
    public var deltaBytes: Int64 {
        if case .applyDeltas(let deltas) = self { return deltas.reduce(0) { $0 + $1.size } }
        return 0
    }
}

public enum ScheduledUpdatePlanner {
    /// The rule of docs/map-areas.md, "Updating a copy", row by row.
    public static func plan(
        localReplica: String, localGeneration: Int64, package: PackageState, resources: [PackageDelta]
    )
        -> ScheduledUpdatePlan
    {
        guard GlobalID.normalize(localReplica) == GlobalID.normalize(package.replicaId) else {
            return .downloadWhole(.packageReplaced(localReplica: localReplica, packageReplica: package.replicaId))
        }
        if localGeneration == package.generation { return .upToDate }
        if localGeneration > package.generation {
            return .downloadWhole(.copyAheadOfPackage(localGeneration: localGeneration, packageGeneration: package.generation))
        }
        if let purged = package.lastPurgedGeneration, localGeneration < purged {
            return .downloadWhole(.deltasPurged(localGeneration: localGeneration, lastPurgedGeneration: purged))
        }
        guard package.keepsDeltas else {
            return .downloadWhole(.noDeltasKept(localGeneration: localGeneration, packageGeneration: package.generation))
        }
        let needed = resources.filter { $0.generation > localGeneration }.sorted { $0.generation < $1.generation }
        guard let last = needed.last, last.generation == package.generation else {
            return .downloadWhole(.deltasDoNotReach(localGeneration: localGeneration, packageGeneration: package.generation))
        }
        return .applyDeltas(needed)
    }
}
